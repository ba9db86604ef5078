/** How a customisation's price counts towards the price of a configuration. */
export type PriceMode =
  /** Its price is added to the product's price (the default). */
  | 'ADD'
  /** Its price replaces the product's base price (e.g. a size that sets the price). At most one may be chosen. */
  | 'REPLACE_BASE';

/** What a configuration rule says about its two customisations. */
export type RuleKind =
  /** Choosing `customisation` needs `other` chosen too. */
  | 'REQUIRES'
  /** `customisation` and `other` may not both be chosen (either way round). */
  | 'EXCLUDES';

/** Why a selection cannot be ordered as it is. */
export type ViolationCode =
  /** Not a customisation of this product. */
  | 'UNKNOWN_CUSTOMISATION'
  /** Chosen more than once: it counts once, with its first value. */
  | 'DUPLICATE_SELECTION'
  /** A required step has no choice. */
  | 'STEP_REQUIRED'
  /** Fewer choices in a component than its `minSelections`. */
  | 'TOO_FEW_SELECTIONS'
  /** More choices in a component than its `maxSelections`. */
  | 'TOO_MANY_SELECTIONS'
  /** A `REQUIRES` rule is broken. */
  | 'REQUIRES'
  /** An `EXCLUDES` rule is broken. */
  | 'EXCLUDES'
  /** A `text`, `typography` or `image` customisation without a value. */
  | 'VALUE_REQUIRED'
  /** A value longer than 1000 characters. */
  | 'VALUE_TOO_LONG'
  /** More than one `REPLACE_BASE` customisation chosen: reported for each after the first. */
  | 'BASE_PRICE_CONFLICT';

/** A column products can be sorted by. */
export type ProductOrderColumn =
  /** The product's id (the default order). */
  | 'ID'
  /** The name's first 200 characters, case-insensitively (`lower` under the "C" collation, then the name itself). */
  | 'NAME'
  /** The sku's first 200 characters, case-insensitively (`lower` under the "C" collation, then the sku itself). */
  | 'SKU'
  /** The price before choices. */
  | 'BASE_PRICE'
  /** When the product was created. */
  | 'CREATED_AT'
  /** When the product or anything in its tree last changed. */
  | 'UPDATED_AT';

/** A sort direction. */
export type SortOrder =
  /** Smallest first. */
  | 'ASC'
  /** Largest first. */
  | 'DESC';

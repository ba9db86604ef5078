import type { PriceMode, RuleKind } from './generated/enums.ts';

// What resolvers receive (codegen's mappers). The repository's reads return exactly these shapes, plus the
// loader's parent key, so no per-row conversion runs between SQL and GraphQL. Timestamps are epoch
// milliseconds: a number costs pg no Date per row, and DateTime serializes only the ones selected.
// Money comes twice: as the schema's Float (`price`, `basePrice`: the float8 of the stored numeric(12,2),
// whose shortest text is the decimal itself) for the edge, and as integer cents (`priceCents`,
// `basePriceCents`, computed by PostgreSQL) for everything that computes: the rules engine, cursors.

interface Stamped {
  createdAt: number;
  updatedAt: number;
}

export interface ProductParent extends Stamped {
  id: string;
  name: string;
  sku: string;
  basePrice: number;
  basePriceCents: number;
  currency: string;
  /** Rows in the product's tree: not fields, they bound the answer before the tree is read (answer-size.ts). */
  stepCount: number;
  componentCount: number;
  customisationCount: number;
}
export interface StepParent extends Stamped {
  id: string;
  name: string;
  order: number;
  required: boolean;
}
export interface ComponentParent extends Stamped {
  id: string;
  name: string;
  position: number;
  minSelections: number;
  maxSelections: number | null;
}
export interface CustomisationParent extends Stamped {
  id: string;
  name: string;
  type: string;
  price: number;
  priceCents: number;
  priceMode: PriceMode;
}
export interface ConfigurationRuleParent {
  id: string;
  kind: RuleKind;
  customisationId: string;
  otherCustomisationId: string;
  message: string | null;
}

import type { GraphQLResolveInfo, GraphQLScalarType, GraphQLScalarTypeConfig } from 'graphql';
import type { ProductParent, StepParent, ComponentParent, CustomisationParent, ConfigurationRuleParent } from '../parents.ts';
import type { ProductPage } from '../service.ts';
import type { ConfigurationCheckParent, PriceBreakdownParent, PriceLineParent, MoneyParent } from '../configure/service.ts';
import type { CatalogContext } from '../context.ts';
export type Maybe<T> = T | null;
export type InputMaybe<T> = Maybe<T>;
export type RequireFields<T, K extends keyof T> = Omit<T, K> & { [P in K]-?: NonNullable<T[P]> };
/** All built-in and custom scalars, mapped to their actual values */
export type Scalars = {
  ID: { input: string; output: string; }
  String: { input: string; output: string; }
  Boolean: { input: boolean; output: boolean; }
  Int: { input: number; output: number; }
  Float: { input: number; output: number; }
  /**
   * A date and time with a time zone, as an RFC 3339 string in UTC with millisecond precision, for
   * example `2026-11-23T09:30:00.000Z`. Sent back unchanged as `expectedUpdatedAt`, it compares
   * equal to the stored value. Accepted from `0001-01-01T00:00:00.000Z` to
   * `9999-12-31T23:59:59.999Z` (after applying the offset; digits beyond the millisecond are
   * dropped); any other value is refused with `BAD_USER_INPUT`.
   */
  DateTime: { input: Date; output: Date | string | number; }
  /**
   * An exact amount of money in major units as a string with exactly two decimals, such as
   * `"1234.50"` or `"0.29"`: never a float, so nothing rounds it on the way. Computed in integer
   * cents on the server.
   */
  Decimal: { input: unknown; output: unknown; }
  _FieldSet: { input: unknown; output: unknown; }
};

/**
 * The root of every read. Each module adds its own fields with `extend type Query`.
 * Every operation needs the header `Authorization: Bearer <token>`, with a token issued by
 * `POST /api/v1/login`; without a valid one the answer is HTTP 401 with the error code
 * `UNAUTHENTICATED`. Catalogue reads need the token's `catalog:read` ability (every login token
 * has it); without it the answer is an error with the code `FORBIDDEN`.
 */
export type Query = {
  __typename?: 'Query';
  /**
   * Checks and prices a selection of a product's customisations without storing anything; null
   * when the product does not exist. At most 1000 selections (more: `BAD_USER_INPUT`).
   */
  configure?: Maybe<ConfigurationCheck>;
  /**
   * A page of products: those matching `search` and `filter`, in `orderBy`'s order (by id
   * ascending by default; ties always end on id ascending, so the order is total). Ask for the
   * first page with `first` (and the same `search`, `filter` and `orderBy` every time); ask for the
   * next with `after` set to the previous page's `paginatorInfo.endCursor`. A walk sees every
   * product whose sort key does not change meanwhile exactly once, whatever is inserted or deleted.
   * Errors (code `BAD_USER_INPUT`): `first` outside 1 to the maximum page size; a malformed or
   * corrupted `after`, or one taken from a query with other `search`, `filter` or `orderBy`
   * (`Invalid cursor.`); a `search` over 100 characters; more than 100 `filter.skus`; more than 2
   * `orderBy` clauses, or a column named twice.
   */
  products: ProductPaginator;
  /** One product by its id, or null when no product has that id (including ids that are not positive integers). */
  product?: Maybe<Product>;
  /** One product by its sku (exact, case-sensitive: the key import, export and upsert use; spaces around it are ignored, as writes trim them), or null when none has it. */
  productBySku?: Maybe<Product>;
};


/**
 * The root of every read. Each module adds its own fields with `extend type Query`.
 * Every operation needs the header `Authorization: Bearer <token>`, with a token issued by
 * `POST /api/v1/login`; without a valid one the answer is HTTP 401 with the error code
 * `UNAUTHENTICATED`. Catalogue reads need the token's `catalog:read` ability (every login token
 * has it); without it the answer is an error with the code `FORBIDDEN`.
 */
export type QueryConfigureArgs = {
  productId: Scalars['ID']['input'];
  selections: Array<SelectionInput>;
};


/**
 * The root of every read. Each module adds its own fields with `extend type Query`.
 * Every operation needs the header `Authorization: Bearer <token>`, with a token issued by
 * `POST /api/v1/login`; without a valid one the answer is HTTP 401 with the error code
 * `UNAUTHENTICATED`. Catalogue reads need the token's `catalog:read` ability (every login token
 * has it); without it the answer is an error with the code `FORBIDDEN`.
 */
export type QueryProductsArgs = {
  first?: Scalars['Int']['input'];
  after?: InputMaybe<Scalars['String']['input']>;
  search?: InputMaybe<Scalars['String']['input']>;
  filter?: InputMaybe<ProductFilter>;
  orderBy?: InputMaybe<Array<ProductOrderBy>>;
};


/**
 * The root of every read. Each module adds its own fields with `extend type Query`.
 * Every operation needs the header `Authorization: Bearer <token>`, with a token issued by
 * `POST /api/v1/login`; without a valid one the answer is HTTP 401 with the error code
 * `UNAUTHENTICATED`. Catalogue reads need the token's `catalog:read` ability (every login token
 * has it); without it the answer is an error with the code `FORBIDDEN`.
 */
export type QueryProductArgs = {
  id: Scalars['ID']['input'];
};


/**
 * The root of every read. Each module adds its own fields with `extend type Query`.
 * Every operation needs the header `Authorization: Bearer <token>`, with a token issued by
 * `POST /api/v1/login`; without a valid one the answer is HTTP 401 with the error code
 * `UNAUTHENTICATED`. Catalogue reads need the token's `catalog:read` ability (every login token
 * has it); without it the answer is an error with the code `FORBIDDEN`.
 */
export type QueryProductBySkuArgs = {
  sku: Scalars['String']['input'];
};

/**
 * Writes. Catalogue writes (and `deleteConfiguration`) need a token with the `catalog:write`
 * ability, which only administrators' tokens carry; `saveConfiguration` needs `configurations:write`
 * and `catalog:read`, which every login token has. Without the ability a mutation needs, the answer
 * is an error with the code `FORBIDDEN` and nothing runs. Each mutation is one transaction: it changes everything it was asked to, or nothing.
 * Send inputs as variables: a document is limited in tokens, variables are not.
 *
 * Errors carry `extensions.code`: `BAD_USER_INPUT` when the input breaks a rule, with the message
 * `Validation failed for the field [<mutation>].` and, as Lighthouse does, `extensions.validation`
 * mapping each argument path to its messages, e.g.
 * `{"input.steps.0.components.1.customisations.0.price": ["The price must have at most 2 decimals."]}`
 * (at most 100 paths are listed); `NOT_FOUND` when an id names nothing; `CONFLICT` when
 * `expectedUpdatedAt` is older than the product's `updatedAt` (`extensions.updatedAt` has the
 * current one).
 */
export type Mutation = {
  __typename?: 'Mutation';
  /**
   * Creates a product, with its whole tree when `steps` is given, in one transaction. Errors:
   * `BAD_USER_INPUT` (validation, a taken sku: `The sku has already been taken.`).
   */
  createProduct: Product;
  /**
   * Changes a product's name or sku. Errors: `NOT_FOUND` (no such product), `CONFLICT` (its
   * `updatedAt` is newer than `expectedUpdatedAt`), `BAD_USER_INPUT`.
   */
  updateProduct: Product;
  /**
   * Deletes a product and its whole tree; returns the product as it was. Errors: `NOT_FOUND`,
   * `CONFLICT`.
   */
  deleteProduct: Product;
  /**
   * Creates or replaces the product with this `sku`, name and whole tree, in one transaction.
   * Stored children are matched and keep their ids (other subgraphs reference them): by `id` when
   * the input gives one, otherwise steps by `order`, components by `position` within their step
   * and customisations by `name` within their component. Stored children the input does not
   * match are deleted. The same input twice changes nothing the second time, `updatedAt`
   * included. This is what `npm run admin -- catalog:import` runs for each product.
   */
  upsertProduct: Product;
  /**
   * Adds a step to a product, with its components when given. Errors: `NOT_FOUND` (no such
   * product), `CONFLICT`, `BAD_USER_INPUT` (an `order` the product already has, among others).
   */
  createStep: Step;
  /** Changes a step's name or order. Errors: `NOT_FOUND`, `CONFLICT`, `BAD_USER_INPUT`. */
  updateStep: Step;
  /** Deletes a step and its components; returns the step as it was. Errors: `NOT_FOUND`, `CONFLICT`. */
  deleteStep: Step;
  /** Adds a component to a step, with its customisations when given. Errors: `NOT_FOUND`, `CONFLICT`, `BAD_USER_INPUT`. */
  createComponent: Component;
  /** Changes a component's name or position. Errors: `NOT_FOUND`, `CONFLICT`, `BAD_USER_INPUT`. */
  updateComponent: Component;
  /** Deletes a component and its customisations; returns the component as it was. Errors: `NOT_FOUND`, `CONFLICT`. */
  deleteComponent: Component;
  /** Adds a customisation to a component. Errors: `NOT_FOUND`, `CONFLICT`, `BAD_USER_INPUT`. */
  createCustomisation: Customisation;
  /** Changes a customisation's name, type or price. Errors: `NOT_FOUND`, `CONFLICT`, `BAD_USER_INPUT`. */
  updateCustomisation: Customisation;
  /** Deletes a customisation; returns it as it was. Errors: `NOT_FOUND`, `CONFLICT`. */
  deleteCustomisation: Customisation;
  /**
   * Puts a product's steps in the order given: the first gets `order` 1, the next 2, and so on.
   * `stepIds` must list every step of the product exactly once. Errors: `NOT_FOUND`, `CONFLICT`,
   * `BAD_USER_INPUT`.
   */
  reorderSteps: Product;
  /**
   * Puts a step's components in the order given: the first gets `position` 1, the next 2, and so
   * on. `componentIds` must list every component of the step exactly once. Errors: `NOT_FOUND`,
   * `CONFLICT`, `BAD_USER_INPUT`.
   */
  reorderComponents: Step;
  /**
   * Adds a rule between two customisations of a product. Errors: `NOT_FOUND` (no such product),
   * `CONFLICT`, `BAD_USER_INPUT` (an end that is not a customisation of the product, a rule on
   * itself, a rule the product already has — `EXCLUDES` either way round — or one rule too many).
   */
  createRule: ConfigurationRule;
  /** Deletes a rule; returns it as it was. Errors: `NOT_FOUND`, `CONFLICT`. */
  deleteRule: ConfigurationRule;
};


/**
 * Writes. Catalogue writes (and `deleteConfiguration`) need a token with the `catalog:write`
 * ability, which only administrators' tokens carry; `saveConfiguration` needs `configurations:write`
 * and `catalog:read`, which every login token has. Without the ability a mutation needs, the answer
 * is an error with the code `FORBIDDEN` and nothing runs. Each mutation is one transaction: it changes everything it was asked to, or nothing.
 * Send inputs as variables: a document is limited in tokens, variables are not.
 *
 * Errors carry `extensions.code`: `BAD_USER_INPUT` when the input breaks a rule, with the message
 * `Validation failed for the field [<mutation>].` and, as Lighthouse does, `extensions.validation`
 * mapping each argument path to its messages, e.g.
 * `{"input.steps.0.components.1.customisations.0.price": ["The price must have at most 2 decimals."]}`
 * (at most 100 paths are listed); `NOT_FOUND` when an id names nothing; `CONFLICT` when
 * `expectedUpdatedAt` is older than the product's `updatedAt` (`extensions.updatedAt` has the
 * current one).
 */
export type MutationCreateProductArgs = {
  input: CreateProductInput;
};


/**
 * Writes. Catalogue writes (and `deleteConfiguration`) need a token with the `catalog:write`
 * ability, which only administrators' tokens carry; `saveConfiguration` needs `configurations:write`
 * and `catalog:read`, which every login token has. Without the ability a mutation needs, the answer
 * is an error with the code `FORBIDDEN` and nothing runs. Each mutation is one transaction: it changes everything it was asked to, or nothing.
 * Send inputs as variables: a document is limited in tokens, variables are not.
 *
 * Errors carry `extensions.code`: `BAD_USER_INPUT` when the input breaks a rule, with the message
 * `Validation failed for the field [<mutation>].` and, as Lighthouse does, `extensions.validation`
 * mapping each argument path to its messages, e.g.
 * `{"input.steps.0.components.1.customisations.0.price": ["The price must have at most 2 decimals."]}`
 * (at most 100 paths are listed); `NOT_FOUND` when an id names nothing; `CONFLICT` when
 * `expectedUpdatedAt` is older than the product's `updatedAt` (`extensions.updatedAt` has the
 * current one).
 */
export type MutationUpdateProductArgs = {
  id: Scalars['ID']['input'];
  input: UpdateProductInput;
};


/**
 * Writes. Catalogue writes (and `deleteConfiguration`) need a token with the `catalog:write`
 * ability, which only administrators' tokens carry; `saveConfiguration` needs `configurations:write`
 * and `catalog:read`, which every login token has. Without the ability a mutation needs, the answer
 * is an error with the code `FORBIDDEN` and nothing runs. Each mutation is one transaction: it changes everything it was asked to, or nothing.
 * Send inputs as variables: a document is limited in tokens, variables are not.
 *
 * Errors carry `extensions.code`: `BAD_USER_INPUT` when the input breaks a rule, with the message
 * `Validation failed for the field [<mutation>].` and, as Lighthouse does, `extensions.validation`
 * mapping each argument path to its messages, e.g.
 * `{"input.steps.0.components.1.customisations.0.price": ["The price must have at most 2 decimals."]}`
 * (at most 100 paths are listed); `NOT_FOUND` when an id names nothing; `CONFLICT` when
 * `expectedUpdatedAt` is older than the product's `updatedAt` (`extensions.updatedAt` has the
 * current one).
 */
export type MutationDeleteProductArgs = {
  id: Scalars['ID']['input'];
  expectedUpdatedAt?: InputMaybe<Scalars['DateTime']['input']>;
};


/**
 * Writes. Catalogue writes (and `deleteConfiguration`) need a token with the `catalog:write`
 * ability, which only administrators' tokens carry; `saveConfiguration` needs `configurations:write`
 * and `catalog:read`, which every login token has. Without the ability a mutation needs, the answer
 * is an error with the code `FORBIDDEN` and nothing runs. Each mutation is one transaction: it changes everything it was asked to, or nothing.
 * Send inputs as variables: a document is limited in tokens, variables are not.
 *
 * Errors carry `extensions.code`: `BAD_USER_INPUT` when the input breaks a rule, with the message
 * `Validation failed for the field [<mutation>].` and, as Lighthouse does, `extensions.validation`
 * mapping each argument path to its messages, e.g.
 * `{"input.steps.0.components.1.customisations.0.price": ["The price must have at most 2 decimals."]}`
 * (at most 100 paths are listed); `NOT_FOUND` when an id names nothing; `CONFLICT` when
 * `expectedUpdatedAt` is older than the product's `updatedAt` (`extensions.updatedAt` has the
 * current one).
 */
export type MutationUpsertProductArgs = {
  input: UpsertProductInput;
};


/**
 * Writes. Catalogue writes (and `deleteConfiguration`) need a token with the `catalog:write`
 * ability, which only administrators' tokens carry; `saveConfiguration` needs `configurations:write`
 * and `catalog:read`, which every login token has. Without the ability a mutation needs, the answer
 * is an error with the code `FORBIDDEN` and nothing runs. Each mutation is one transaction: it changes everything it was asked to, or nothing.
 * Send inputs as variables: a document is limited in tokens, variables are not.
 *
 * Errors carry `extensions.code`: `BAD_USER_INPUT` when the input breaks a rule, with the message
 * `Validation failed for the field [<mutation>].` and, as Lighthouse does, `extensions.validation`
 * mapping each argument path to its messages, e.g.
 * `{"input.steps.0.components.1.customisations.0.price": ["The price must have at most 2 decimals."]}`
 * (at most 100 paths are listed); `NOT_FOUND` when an id names nothing; `CONFLICT` when
 * `expectedUpdatedAt` is older than the product's `updatedAt` (`extensions.updatedAt` has the
 * current one).
 */
export type MutationCreateStepArgs = {
  productId: Scalars['ID']['input'];
  input: CreateStepInput;
};


/**
 * Writes. Catalogue writes (and `deleteConfiguration`) need a token with the `catalog:write`
 * ability, which only administrators' tokens carry; `saveConfiguration` needs `configurations:write`
 * and `catalog:read`, which every login token has. Without the ability a mutation needs, the answer
 * is an error with the code `FORBIDDEN` and nothing runs. Each mutation is one transaction: it changes everything it was asked to, or nothing.
 * Send inputs as variables: a document is limited in tokens, variables are not.
 *
 * Errors carry `extensions.code`: `BAD_USER_INPUT` when the input breaks a rule, with the message
 * `Validation failed for the field [<mutation>].` and, as Lighthouse does, `extensions.validation`
 * mapping each argument path to its messages, e.g.
 * `{"input.steps.0.components.1.customisations.0.price": ["The price must have at most 2 decimals."]}`
 * (at most 100 paths are listed); `NOT_FOUND` when an id names nothing; `CONFLICT` when
 * `expectedUpdatedAt` is older than the product's `updatedAt` (`extensions.updatedAt` has the
 * current one).
 */
export type MutationUpdateStepArgs = {
  id: Scalars['ID']['input'];
  input: UpdateStepInput;
};


/**
 * Writes. Catalogue writes (and `deleteConfiguration`) need a token with the `catalog:write`
 * ability, which only administrators' tokens carry; `saveConfiguration` needs `configurations:write`
 * and `catalog:read`, which every login token has. Without the ability a mutation needs, the answer
 * is an error with the code `FORBIDDEN` and nothing runs. Each mutation is one transaction: it changes everything it was asked to, or nothing.
 * Send inputs as variables: a document is limited in tokens, variables are not.
 *
 * Errors carry `extensions.code`: `BAD_USER_INPUT` when the input breaks a rule, with the message
 * `Validation failed for the field [<mutation>].` and, as Lighthouse does, `extensions.validation`
 * mapping each argument path to its messages, e.g.
 * `{"input.steps.0.components.1.customisations.0.price": ["The price must have at most 2 decimals."]}`
 * (at most 100 paths are listed); `NOT_FOUND` when an id names nothing; `CONFLICT` when
 * `expectedUpdatedAt` is older than the product's `updatedAt` (`extensions.updatedAt` has the
 * current one).
 */
export type MutationDeleteStepArgs = {
  id: Scalars['ID']['input'];
  expectedUpdatedAt?: InputMaybe<Scalars['DateTime']['input']>;
};


/**
 * Writes. Catalogue writes (and `deleteConfiguration`) need a token with the `catalog:write`
 * ability, which only administrators' tokens carry; `saveConfiguration` needs `configurations:write`
 * and `catalog:read`, which every login token has. Without the ability a mutation needs, the answer
 * is an error with the code `FORBIDDEN` and nothing runs. Each mutation is one transaction: it changes everything it was asked to, or nothing.
 * Send inputs as variables: a document is limited in tokens, variables are not.
 *
 * Errors carry `extensions.code`: `BAD_USER_INPUT` when the input breaks a rule, with the message
 * `Validation failed for the field [<mutation>].` and, as Lighthouse does, `extensions.validation`
 * mapping each argument path to its messages, e.g.
 * `{"input.steps.0.components.1.customisations.0.price": ["The price must have at most 2 decimals."]}`
 * (at most 100 paths are listed); `NOT_FOUND` when an id names nothing; `CONFLICT` when
 * `expectedUpdatedAt` is older than the product's `updatedAt` (`extensions.updatedAt` has the
 * current one).
 */
export type MutationCreateComponentArgs = {
  stepId: Scalars['ID']['input'];
  input: CreateComponentInput;
};


/**
 * Writes. Catalogue writes (and `deleteConfiguration`) need a token with the `catalog:write`
 * ability, which only administrators' tokens carry; `saveConfiguration` needs `configurations:write`
 * and `catalog:read`, which every login token has. Without the ability a mutation needs, the answer
 * is an error with the code `FORBIDDEN` and nothing runs. Each mutation is one transaction: it changes everything it was asked to, or nothing.
 * Send inputs as variables: a document is limited in tokens, variables are not.
 *
 * Errors carry `extensions.code`: `BAD_USER_INPUT` when the input breaks a rule, with the message
 * `Validation failed for the field [<mutation>].` and, as Lighthouse does, `extensions.validation`
 * mapping each argument path to its messages, e.g.
 * `{"input.steps.0.components.1.customisations.0.price": ["The price must have at most 2 decimals."]}`
 * (at most 100 paths are listed); `NOT_FOUND` when an id names nothing; `CONFLICT` when
 * `expectedUpdatedAt` is older than the product's `updatedAt` (`extensions.updatedAt` has the
 * current one).
 */
export type MutationUpdateComponentArgs = {
  id: Scalars['ID']['input'];
  input: UpdateComponentInput;
};


/**
 * Writes. Catalogue writes (and `deleteConfiguration`) need a token with the `catalog:write`
 * ability, which only administrators' tokens carry; `saveConfiguration` needs `configurations:write`
 * and `catalog:read`, which every login token has. Without the ability a mutation needs, the answer
 * is an error with the code `FORBIDDEN` and nothing runs. Each mutation is one transaction: it changes everything it was asked to, or nothing.
 * Send inputs as variables: a document is limited in tokens, variables are not.
 *
 * Errors carry `extensions.code`: `BAD_USER_INPUT` when the input breaks a rule, with the message
 * `Validation failed for the field [<mutation>].` and, as Lighthouse does, `extensions.validation`
 * mapping each argument path to its messages, e.g.
 * `{"input.steps.0.components.1.customisations.0.price": ["The price must have at most 2 decimals."]}`
 * (at most 100 paths are listed); `NOT_FOUND` when an id names nothing; `CONFLICT` when
 * `expectedUpdatedAt` is older than the product's `updatedAt` (`extensions.updatedAt` has the
 * current one).
 */
export type MutationDeleteComponentArgs = {
  id: Scalars['ID']['input'];
  expectedUpdatedAt?: InputMaybe<Scalars['DateTime']['input']>;
};


/**
 * Writes. Catalogue writes (and `deleteConfiguration`) need a token with the `catalog:write`
 * ability, which only administrators' tokens carry; `saveConfiguration` needs `configurations:write`
 * and `catalog:read`, which every login token has. Without the ability a mutation needs, the answer
 * is an error with the code `FORBIDDEN` and nothing runs. Each mutation is one transaction: it changes everything it was asked to, or nothing.
 * Send inputs as variables: a document is limited in tokens, variables are not.
 *
 * Errors carry `extensions.code`: `BAD_USER_INPUT` when the input breaks a rule, with the message
 * `Validation failed for the field [<mutation>].` and, as Lighthouse does, `extensions.validation`
 * mapping each argument path to its messages, e.g.
 * `{"input.steps.0.components.1.customisations.0.price": ["The price must have at most 2 decimals."]}`
 * (at most 100 paths are listed); `NOT_FOUND` when an id names nothing; `CONFLICT` when
 * `expectedUpdatedAt` is older than the product's `updatedAt` (`extensions.updatedAt` has the
 * current one).
 */
export type MutationCreateCustomisationArgs = {
  componentId: Scalars['ID']['input'];
  input: CreateCustomisationInput;
};


/**
 * Writes. Catalogue writes (and `deleteConfiguration`) need a token with the `catalog:write`
 * ability, which only administrators' tokens carry; `saveConfiguration` needs `configurations:write`
 * and `catalog:read`, which every login token has. Without the ability a mutation needs, the answer
 * is an error with the code `FORBIDDEN` and nothing runs. Each mutation is one transaction: it changes everything it was asked to, or nothing.
 * Send inputs as variables: a document is limited in tokens, variables are not.
 *
 * Errors carry `extensions.code`: `BAD_USER_INPUT` when the input breaks a rule, with the message
 * `Validation failed for the field [<mutation>].` and, as Lighthouse does, `extensions.validation`
 * mapping each argument path to its messages, e.g.
 * `{"input.steps.0.components.1.customisations.0.price": ["The price must have at most 2 decimals."]}`
 * (at most 100 paths are listed); `NOT_FOUND` when an id names nothing; `CONFLICT` when
 * `expectedUpdatedAt` is older than the product's `updatedAt` (`extensions.updatedAt` has the
 * current one).
 */
export type MutationUpdateCustomisationArgs = {
  id: Scalars['ID']['input'];
  input: UpdateCustomisationInput;
};


/**
 * Writes. Catalogue writes (and `deleteConfiguration`) need a token with the `catalog:write`
 * ability, which only administrators' tokens carry; `saveConfiguration` needs `configurations:write`
 * and `catalog:read`, which every login token has. Without the ability a mutation needs, the answer
 * is an error with the code `FORBIDDEN` and nothing runs. Each mutation is one transaction: it changes everything it was asked to, or nothing.
 * Send inputs as variables: a document is limited in tokens, variables are not.
 *
 * Errors carry `extensions.code`: `BAD_USER_INPUT` when the input breaks a rule, with the message
 * `Validation failed for the field [<mutation>].` and, as Lighthouse does, `extensions.validation`
 * mapping each argument path to its messages, e.g.
 * `{"input.steps.0.components.1.customisations.0.price": ["The price must have at most 2 decimals."]}`
 * (at most 100 paths are listed); `NOT_FOUND` when an id names nothing; `CONFLICT` when
 * `expectedUpdatedAt` is older than the product's `updatedAt` (`extensions.updatedAt` has the
 * current one).
 */
export type MutationDeleteCustomisationArgs = {
  id: Scalars['ID']['input'];
  expectedUpdatedAt?: InputMaybe<Scalars['DateTime']['input']>;
};


/**
 * Writes. Catalogue writes (and `deleteConfiguration`) need a token with the `catalog:write`
 * ability, which only administrators' tokens carry; `saveConfiguration` needs `configurations:write`
 * and `catalog:read`, which every login token has. Without the ability a mutation needs, the answer
 * is an error with the code `FORBIDDEN` and nothing runs. Each mutation is one transaction: it changes everything it was asked to, or nothing.
 * Send inputs as variables: a document is limited in tokens, variables are not.
 *
 * Errors carry `extensions.code`: `BAD_USER_INPUT` when the input breaks a rule, with the message
 * `Validation failed for the field [<mutation>].` and, as Lighthouse does, `extensions.validation`
 * mapping each argument path to its messages, e.g.
 * `{"input.steps.0.components.1.customisations.0.price": ["The price must have at most 2 decimals."]}`
 * (at most 100 paths are listed); `NOT_FOUND` when an id names nothing; `CONFLICT` when
 * `expectedUpdatedAt` is older than the product's `updatedAt` (`extensions.updatedAt` has the
 * current one).
 */
export type MutationReorderStepsArgs = {
  productId: Scalars['ID']['input'];
  stepIds: Array<Scalars['ID']['input']>;
  expectedUpdatedAt?: InputMaybe<Scalars['DateTime']['input']>;
};


/**
 * Writes. Catalogue writes (and `deleteConfiguration`) need a token with the `catalog:write`
 * ability, which only administrators' tokens carry; `saveConfiguration` needs `configurations:write`
 * and `catalog:read`, which every login token has. Without the ability a mutation needs, the answer
 * is an error with the code `FORBIDDEN` and nothing runs. Each mutation is one transaction: it changes everything it was asked to, or nothing.
 * Send inputs as variables: a document is limited in tokens, variables are not.
 *
 * Errors carry `extensions.code`: `BAD_USER_INPUT` when the input breaks a rule, with the message
 * `Validation failed for the field [<mutation>].` and, as Lighthouse does, `extensions.validation`
 * mapping each argument path to its messages, e.g.
 * `{"input.steps.0.components.1.customisations.0.price": ["The price must have at most 2 decimals."]}`
 * (at most 100 paths are listed); `NOT_FOUND` when an id names nothing; `CONFLICT` when
 * `expectedUpdatedAt` is older than the product's `updatedAt` (`extensions.updatedAt` has the
 * current one).
 */
export type MutationReorderComponentsArgs = {
  stepId: Scalars['ID']['input'];
  componentIds: Array<Scalars['ID']['input']>;
  expectedUpdatedAt?: InputMaybe<Scalars['DateTime']['input']>;
};


/**
 * Writes. Catalogue writes (and `deleteConfiguration`) need a token with the `catalog:write`
 * ability, which only administrators' tokens carry; `saveConfiguration` needs `configurations:write`
 * and `catalog:read`, which every login token has. Without the ability a mutation needs, the answer
 * is an error with the code `FORBIDDEN` and nothing runs. Each mutation is one transaction: it changes everything it was asked to, or nothing.
 * Send inputs as variables: a document is limited in tokens, variables are not.
 *
 * Errors carry `extensions.code`: `BAD_USER_INPUT` when the input breaks a rule, with the message
 * `Validation failed for the field [<mutation>].` and, as Lighthouse does, `extensions.validation`
 * mapping each argument path to its messages, e.g.
 * `{"input.steps.0.components.1.customisations.0.price": ["The price must have at most 2 decimals."]}`
 * (at most 100 paths are listed); `NOT_FOUND` when an id names nothing; `CONFLICT` when
 * `expectedUpdatedAt` is older than the product's `updatedAt` (`extensions.updatedAt` has the
 * current one).
 */
export type MutationCreateRuleArgs = {
  productId: Scalars['ID']['input'];
  input: CreateRuleInput;
};


/**
 * Writes. Catalogue writes (and `deleteConfiguration`) need a token with the `catalog:write`
 * ability, which only administrators' tokens carry; `saveConfiguration` needs `configurations:write`
 * and `catalog:read`, which every login token has. Without the ability a mutation needs, the answer
 * is an error with the code `FORBIDDEN` and nothing runs. Each mutation is one transaction: it changes everything it was asked to, or nothing.
 * Send inputs as variables: a document is limited in tokens, variables are not.
 *
 * Errors carry `extensions.code`: `BAD_USER_INPUT` when the input breaks a rule, with the message
 * `Validation failed for the field [<mutation>].` and, as Lighthouse does, `extensions.validation`
 * mapping each argument path to its messages, e.g.
 * `{"input.steps.0.components.1.customisations.0.price": ["The price must have at most 2 decimals."]}`
 * (at most 100 paths are listed); `NOT_FOUND` when an id names nothing; `CONFLICT` when
 * `expectedUpdatedAt` is older than the product's `updatedAt` (`extensions.updatedAt` has the
 * current one).
 */
export type MutationDeleteRuleArgs = {
  id: Scalars['ID']['input'];
  expectedUpdatedAt?: InputMaybe<Scalars['DateTime']['input']>;
};

/**
 * Paging metadata of a paginated list (Lighthouse's PaginatorInfo plus `endCursor`).
 * Paging is cursor-based: pass `endCursor` as `after` to fetch the next page. All counts and
 * positions are numbers of records, never bytes.
 */
export type PaginatorInfo = {
  __typename?: 'PaginatorInfo';
  /** Number of records on this page: 0 to `perPage`. */
  count: Scalars['Int']['output'];
  /**
   * Page on which the returned records sit, counting from 1, given the requested page size:
   * ceil((records before this page + 1) / `perPage`). 1 on an empty list.
   */
  currentPage: Scalars['Int']['output'];
  /** Position (counting from 1) of this page's first record in the whole list; null on an empty page. */
  firstItem?: Maybe<Scalars['Int']['output']>;
  /** True when at least one record follows this page; false on the last page. */
  hasMorePages: Scalars['Boolean']['output'];
  /** Position (counting from 1) of this page's last record in the whole list; null on an empty page. */
  lastItem?: Maybe<Scalars['Int']['output']>;
  /** Number of the last page: max(1, ceil(`total` / `perPage`)). */
  lastPage: Scalars['Int']['output'];
  /** Requested page size: the `first` argument. */
  perPage: Scalars['Int']['output'];
  /** Number of records in the whole list at the time of the request, all pages together. */
  total: Scalars['Int']['output'];
  /**
   * Opaque cursor of the last record of this page; pass it as `after` to get the next page.
   * Null on an empty page. Cursors mark a position, not an offset: records added or removed
   * elsewhere never make a walk skip or repeat one. Do not build or edit cursors: a malformed or
   * corrupted cursor (truncated, edited, of another list) is refused with `Invalid cursor.`.
   */
  endCursor?: Maybe<Scalars['String']['output']>;
};

/**
 * A part chosen or configured within a step, such as "Handle". Other subgraphs may reference a
 * component by `id`.
 */
export type Component = {
  __typename?: 'Component';
  /** Identifier of the component: a positive decimal integer as a string; never changes. */
  id: Scalars['ID']['output'];
  /** Display name of the component. */
  name: Scalars['String']['output'];
  /**
   * Position of the component in its step: components are listed by position ascending, then by
   * id for equal positions. Not necessarily contiguous nor unique.
   */
  position: Scalars['Int']['output'];
  /**
   * The ways the component can be customised, ordered by id ascending. Never null; an empty list
   * when the component has none.
   */
  customisations: Array<Customisation>;
  /** When the component was created. */
  createdAt: Scalars['DateTime']['output'];
  /** When the component itself last changed (its product's `updatedAt` moves with it). */
  updatedAt: Scalars['DateTime']['output'];
  /** The fewest of this component's customisations a configuration may choose (0 by default). */
  minSelections: Scalars['Int']['output'];
  /** The most of this component's customisations a configuration may choose (1 by default); null: no limit. */
  maxSelections?: Maybe<Scalars['Int']['output']>;
};

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

/**
 * A rule between two customisations of one product, checked by `configure` and
 * `saveConfiguration`. Never between a customisation and itself; one rule per kind and pair.
 */
export type ConfigurationRule = {
  __typename?: 'ConfigurationRule';
  /** Identifier of the rule: a positive decimal integer as a string. */
  id: Scalars['ID']['output'];
  /** What the rule says: `REQUIRES` or `EXCLUDES`. */
  kind: RuleKind;
  /** The customisation the rule constrains; a violation names it as `customisationId`. */
  customisation: Customisation;
  /** The customisation it requires or excludes; a violation names it as `otherCustomisationId`. */
  other: Customisation;
  /** Shown as the violation's message when set; otherwise a message is generated. */
  message?: Maybe<Scalars['String']['output']>;
};

/**
 * A configurable product of the catalogue: a name, a stock-keeping code and the ordered steps
 * a customer goes through to configure it. Other subgraphs may reference a product by `id`.
 */
export type Product = {
  __typename?: 'Product';
  /** The price before any choice, in `currency`: at least 0, at most two decimals (0 unless set). */
  basePrice: Scalars['Float']['output'];
  /** ISO 4217 code of the currency of every price of this product (e.g. `EUR`). */
  currency: Scalars['String']['output'];
  /** The rules between this product's customisations, ordered by id. Empty when there are none. */
  rules: Array<ConfigurationRule>;
  /** Identifier of the product: a positive decimal integer as a string (for example "42"); never changes. */
  id: Scalars['ID']['output'];
  /** Display name of the product, as entered in the catalogue; not necessarily unique. */
  name: Scalars['String']['output'];
  /** Stock-keeping code; unique across the catalogue and compared case-sensitively. */
  sku: Scalars['String']['output'];
  /**
   * The product's configuration steps, ordered by `order` ascending. Never null; an empty
   * list when the product has no steps.
   */
  steps: Array<Step>;
  /** When the product was created. */
  createdAt: Scalars['DateTime']['output'];
  /**
   * When the product or anything in its tree (its steps, their components and customisations)
   * last changed. Send it back as `expectedUpdatedAt` to make a write fail with `CONFLICT` if
   * someone else changed the product in between.
   */
  updatedAt: Scalars['DateTime']['output'];
};

/**
 * One step of a product's configuration, such as "Choose a frame". Other subgraphs may
 * reference a step by `id`.
 */
export type Step = {
  __typename?: 'Step';
  /** When true, at least one customisation of this step must be chosen. */
  required: Scalars['Boolean']['output'];
  /** Identifier of the step: a positive decimal integer as a string; never changes. */
  id: Scalars['ID']['output'];
  /** Display name of the step. */
  name: Scalars['String']['output'];
  /**
   * Position of the step in its product: an integer, unique within the product, ascending in the
   * order a customer goes through the steps. Not necessarily contiguous nor starting at 1.
   */
  order: Scalars['Int']['output'];
  /**
   * The step's components, ordered by position ascending, then by id for equal positions. Never
   * null; an empty list when the step has no components.
   */
  components: Array<Component>;
  /** When the step was created. */
  createdAt: Scalars['DateTime']['output'];
  /** When the step itself last changed (its product's `updatedAt` moves with it). */
  updatedAt: Scalars['DateTime']['output'];
};

/**
 * One option for customising a component, with its kind and price. Other subgraphs (an order or
 * a cart) may reference the options a customer chose by `id`.
 */
export type Customisation = {
  __typename?: 'Customisation';
  /** How this customisation's price counts: added (`ADD`, the default) or replacing the base price. */
  priceMode: PriceMode;
  /** Identifier of the customisation: a positive decimal integer as a string; never changes. */
  id: Scalars['ID']['output'];
  /** Display name of the customisation, such as "Midnight Blue". */
  name: Scalars['String']['output'];
  /**
   * Kind of customisation, which tells a client how to present it: `dropdown`, `colour`, `text`,
   * `image` or `typography` in today's catalogue. Treat an unknown value as a plain option:
   * new kinds may be added without notice.
   */
  type: Scalars['String']['output'];
  /**
   * Price of the customisation in its product's `currency` (major units, e.g. euros, not cents): at least 0, at most 9999999999.99, with at most two decimals. Stored exactly as
   * numeric(12,2) and sent as the nearest Float, which prints back as the stored value: 0.29
   * arrives as 0.29.
   */
  price: Scalars['Float']['output'];
  /** When the customisation was created. */
  createdAt: Scalars['DateTime']['output'];
  /** When the customisation itself last changed (its product's `updatedAt` moves with it). */
  updatedAt: Scalars['DateTime']['output'];
};

/** One chosen customisation, with what the customer entered for it. */
export type SelectionInput = {
  /** The chosen customisation's id. */
  customisationId: Scalars['ID']['input'];
  /**
   * What the customer entered: required (1 to 1000 characters after trimming) for customisations of
   * type `text`, `typography` and `image`; optional (at most 1000 characters) for every other type.
   */
  value?: InputMaybe<Scalars['String']['input']>;
};

/** An amount in a currency. */
export type Money = {
  __typename?: 'Money';
  /** The amount, e.g. `"1234.50"`. */
  amount: Scalars['Decimal']['output'];
  /** ISO 4217 code of the currency, e.g. `EUR`. */
  currency: Scalars['String']['output'];
};

/** One chosen customisation's part of a price. */
export type PriceLine = {
  __typename?: 'PriceLine';
  /** The chosen customisation's id (kept when the customisation is deleted). */
  customisationId: Scalars['ID']['output'];
  /** The customisation's name when the price was computed. */
  name: Scalars['String']['output'];
  /** How the amount counts: added, or replacing the base price. */
  mode: PriceMode;
  /** The customisation's price when the price was computed. */
  amount: Money;
  /** The customisation as it is now; null once it was deleted. */
  customisation?: Maybe<Customisation>;
};

/**
 * A price and how it is made: `total` is the `REPLACE_BASE` line's amount when exactly one is
 * chosen, else `base`, plus every `ADD` line.
 */
export type PriceBreakdown = {
  __typename?: 'PriceBreakdown';
  /** The product's base price. */
  base: Money;
  /** One line per chosen customisation (unknown and repeated choices left out), in catalogue order. */
  lines: Array<PriceLine>;
  /** What the configuration costs. */
  total: Money;
};

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

/**
 * One problem of a selection. The ids say where: a customisation (with its component and step), a
 * component (with its step) or a step; a rule's violation names the rule's `customisation` as
 * `customisationId` and its `other` as `otherCustomisationId`.
 */
export type Violation = {
  __typename?: 'Violation';
  /** What is wrong. */
  code: ViolationCode;
  /** A sentence for the customer; a rule's own `message` when it has one. */
  message: Scalars['String']['output'];
  /** The step concerned: the step itself, or the one holding the component or customisation named. */
  stepId?: Maybe<Scalars['ID']['output']>;
  /** The component concerned, when the violation is about a component or one of its customisations. */
  componentId?: Maybe<Scalars['ID']['output']>;
  /** The customisation concerned (for `UNKNOWN_CUSTOMISATION`, the id as sent). */
  customisationId?: Maybe<Scalars['ID']['output']>;
  /** The other end of a broken rule, or the first `REPLACE_BASE` choice for `BASE_PRICE_CONFLICT`. */
  otherCustomisationId?: Maybe<Scalars['ID']['output']>;
};

/** A selection checked and priced against the catalogue as it is now. */
export type ConfigurationCheck = {
  __typename?: 'ConfigurationCheck';
  /** The product configured, as it is now. */
  product: Product;
  /** True exactly when `violations` is empty. */
  valid: Scalars['Boolean']['output'];
  /**
   * Every problem, in a fixed order: unknown customisations first (by id), then by the place each
   * names in the catalogue (step order, component position then id, customisation id), then code,
   * then the other customisation, then rule. The same selection in any order gives the same list.
   */
  violations: Array<Violation>;
  /** The price, given even when the selection is invalid. */
  price: PriceBreakdown;
};

/** A new product and, optionally, its whole tree. */
export type CreateProductInput = {
  /** Display name: 1 to 200 characters after trimming. */
  name: Scalars['String']['input'];
  /** Stock-keeping code: 1 to 64 of `A-Z a-z 0-9 . _ -`, unique across the catalogue. */
  sku: Scalars['String']['input'];
  /** Price before choices: 0 to 9999999999.99, with at most two decimals. Left out: 0. */
  basePrice?: InputMaybe<Scalars['Float']['input']>;
  /** ISO 4217 code of the product's prices. Left out: the instance's `CATALOG_CURRENCY`. */
  currency?: InputMaybe<Scalars['String']['input']>;
  /** The product's steps, each with a distinct `order`. */
  steps?: InputMaybe<Array<ProductStepInput>>;
  /**
   * The product's rules between its customisations, their ends named by step `order`, component
   * `position` and customisation `name` (each must name exactly one). At most
   * `CATALOG_MAX_RULES_PER_PRODUCT`.
   */
  rules?: InputMaybe<Array<RuleInput>>;
};

/** A step created with its product or its step's tree. */
export type ProductStepInput = {
  /** Display name: 1 to 200 characters after trimming. */
  name: Scalars['String']['input'];
  /** Position in the product: 0 to 1,000,000, unique within the product. */
  order: Scalars['Int']['input'];
  /** At least one of the step's customisations must be chosen. Left out: false. */
  required?: InputMaybe<Scalars['Boolean']['input']>;
  /** The step's components. */
  components?: InputMaybe<Array<StepComponentInput>>;
};

/** A component created with its step. */
export type StepComponentInput = {
  /** Display name: 1 to 200 characters after trimming. */
  name: Scalars['String']['input'];
  /** Position in the step: 0 to 1,000,000. */
  position: Scalars['Int']['input'];
  /** Fewest of its customisations a selection may choose: 0 to 1,000,000. Left out: 0. */
  minSelections?: InputMaybe<Scalars['Int']['input']>;
  /** Most of its customisations a selection may choose, at least `minSelections`; null: no limit. Left out: 1. */
  maxSelections?: InputMaybe<Scalars['Int']['input']>;
  /** The component's customisations. */
  customisations?: InputMaybe<Array<ComponentCustomisationInput>>;
};

/** A customisation created with its component. */
export type ComponentCustomisationInput = {
  /** Display name: 1 to 200 characters after trimming. */
  name: Scalars['String']['input'];
  /** Kind of customisation (`dropdown`, `colour`, `text`, …): 1 to 50 characters, any value. */
  type: Scalars['String']['input'];
  /** Price: 0 to 9999999999.99, with at most two decimals. */
  price: Scalars['Float']['input'];
  /** How its price counts: added (`ADD`, when left out) or replacing the product's base price. */
  priceMode?: InputMaybe<PriceMode>;
};

/** Changes to a product; a field left out keeps its value. */
export type UpdateProductInput = {
  /** Display name: 1 to 200 characters after trimming. */
  name?: InputMaybe<Scalars['String']['input']>;
  /** Stock-keeping code: 1 to 64 of `A-Z a-z 0-9 . _ -`, unique across the catalogue. */
  sku?: InputMaybe<Scalars['String']['input']>;
  /** Price before choices: 0 to 9999999999.99, with at most two decimals. */
  basePrice?: InputMaybe<Scalars['Float']['input']>;
  /** ISO 4217 code of the product's prices. */
  currency?: InputMaybe<Scalars['String']['input']>;
  /** When given, the update fails with `CONFLICT` if the product changed after this time. */
  expectedUpdatedAt?: InputMaybe<Scalars['DateTime']['input']>;
};

/**
 * A whole product as it should be, found by `sku`: created when no product has it, otherwise
 * made equal to this input (name and tree). The format of `npm run admin -- catalog:export`.
 */
export type UpsertProductInput = {
  /** Stock-keeping code that identifies the product: 1 to 64 of `A-Z a-z 0-9 . _ -`. */
  sku: Scalars['String']['input'];
  /** Display name: 1 to 200 characters after trimming. */
  name: Scalars['String']['input'];
  /** Price before choices: 0 to 9999999999.99, with at most two decimals. Left out: 0. */
  basePrice?: InputMaybe<Scalars['Float']['input']>;
  /** ISO 4217 code of the product's prices. Left out: the instance's `CATALOG_CURRENCY`. */
  currency?: InputMaybe<Scalars['String']['input']>;
  /** Every step the product should have, each with a distinct `order`; stored steps not matched are deleted. */
  steps?: InputMaybe<Array<UpsertStepInput>>;
  /**
   * Every rule the product should have, their ends named by step `order`, component `position`
   * and customisation `name` in this input's tree (each must name exactly one). Stored rules of
   * the same kind and ends keep their ids; the others are deleted. Left out: no rules.
   */
  rules?: InputMaybe<Array<RuleInput>>;
  /** When given, the upsert fails with `CONFLICT` if the stored product changed after this time. */
  expectedUpdatedAt?: InputMaybe<Scalars['DateTime']['input']>;
};

/** A step of an upserted product: matched by `id` when given, otherwise by `order`. */
export type UpsertStepInput = {
  /** A stored step of this product to keep (and change); left out: matched by `order`, or created. */
  id?: InputMaybe<Scalars['ID']['input']>;
  /** Display name: 1 to 200 characters after trimming. */
  name: Scalars['String']['input'];
  /** Position in the product: 0 to 1,000,000, unique within the product. */
  order: Scalars['Int']['input'];
  /** At least one of the step's customisations must be chosen. Left out: false. */
  required?: InputMaybe<Scalars['Boolean']['input']>;
  /** Every component the step should have; stored components not matched are deleted. */
  components?: InputMaybe<Array<UpsertComponentInput>>;
};

/**
 * A component of an upserted step: matched by `id` when given, otherwise by `position` within the
 * step. Positions need not be unique: the input components at one position take the stored ones
 * at that position in turn, by id.
 */
export type UpsertComponentInput = {
  /** A stored component of this step to keep (and change); left out: matched by `position`, or created. */
  id?: InputMaybe<Scalars['ID']['input']>;
  /** Display name: 1 to 200 characters after trimming. */
  name: Scalars['String']['input'];
  /** Position in the step: 0 to 1,000,000. */
  position: Scalars['Int']['input'];
  /** Fewest of its customisations a selection may choose: 0 to 1,000,000. Left out: 0. */
  minSelections?: InputMaybe<Scalars['Int']['input']>;
  /** Most of its customisations a selection may choose, at least `minSelections`; null: no limit. Left out: 1. */
  maxSelections?: InputMaybe<Scalars['Int']['input']>;
  /** Every customisation the component should have; stored customisations not matched are deleted. */
  customisations?: InputMaybe<Array<UpsertCustomisationInput>>;
};

/**
 * A customisation of an upserted component: matched by `id` when given, otherwise by `name` within
 * the component. Names need not be unique: the input customisations of one name take the stored
 * ones of that name in turn, by id.
 */
export type UpsertCustomisationInput = {
  /** A stored customisation of this component to keep (and change); left out: matched by `name`, or created. */
  id?: InputMaybe<Scalars['ID']['input']>;
  /** Display name: 1 to 200 characters after trimming. */
  name: Scalars['String']['input'];
  /** Kind of customisation: 1 to 50 characters, any value. */
  type: Scalars['String']['input'];
  /** Price: 0 to 9999999999.99, with at most two decimals. */
  price: Scalars['Float']['input'];
  /** How its price counts: added (`ADD`, when left out) or replacing the product's base price. */
  priceMode?: InputMaybe<PriceMode>;
};

/** A new step of an existing product, optionally with its components. */
export type CreateStepInput = {
  /** Display name: 1 to 200 characters after trimming. */
  name: Scalars['String']['input'];
  /** Position in the product: 0 to 1,000,000, unique within the product. */
  order: Scalars['Int']['input'];
  /** At least one of the step's customisations must be chosen. Left out: false. */
  required?: InputMaybe<Scalars['Boolean']['input']>;
  /** The step's components. */
  components?: InputMaybe<Array<StepComponentInput>>;
  /** When given, the write fails with `CONFLICT` if the product changed after this time. */
  expectedUpdatedAt?: InputMaybe<Scalars['DateTime']['input']>;
};

/** Changes to a step; a field left out keeps its value. */
export type UpdateStepInput = {
  /** Display name: 1 to 200 characters after trimming. */
  name?: InputMaybe<Scalars['String']['input']>;
  /** Position in the product: 0 to 1,000,000, unique within the product. */
  order?: InputMaybe<Scalars['Int']['input']>;
  /** At least one of the step's customisations must be chosen. */
  required?: InputMaybe<Scalars['Boolean']['input']>;
  /** When given, the update fails with `CONFLICT` if the step's product changed after this time. */
  expectedUpdatedAt?: InputMaybe<Scalars['DateTime']['input']>;
};

/** A new component of an existing step, optionally with its customisations. */
export type CreateComponentInput = {
  /** Display name: 1 to 200 characters after trimming. */
  name: Scalars['String']['input'];
  /** Position in the step: 0 to 1,000,000. */
  position: Scalars['Int']['input'];
  /** Fewest of its customisations a selection may choose: 0 to 1,000,000. Left out: 0. */
  minSelections?: InputMaybe<Scalars['Int']['input']>;
  /** Most of its customisations a selection may choose, at least `minSelections`; null: no limit. Left out: 1. */
  maxSelections?: InputMaybe<Scalars['Int']['input']>;
  /** The component's customisations. */
  customisations?: InputMaybe<Array<ComponentCustomisationInput>>;
  /** When given, the write fails with `CONFLICT` if the step's product changed after this time. */
  expectedUpdatedAt?: InputMaybe<Scalars['DateTime']['input']>;
};

/** Changes to a component; a field left out keeps its value. */
export type UpdateComponentInput = {
  /** Display name: 1 to 200 characters after trimming. */
  name?: InputMaybe<Scalars['String']['input']>;
  /** Position in the step: 0 to 1,000,000. */
  position?: InputMaybe<Scalars['Int']['input']>;
  /** Fewest of its customisations a selection may choose: 0 to 1,000,000, at most `maxSelections`. */
  minSelections?: InputMaybe<Scalars['Int']['input']>;
  /** Most of its customisations a selection may choose; null: no limit; left out: kept. */
  maxSelections?: InputMaybe<Scalars['Int']['input']>;
  /** When given, the update fails with `CONFLICT` if the component's product changed after this time. */
  expectedUpdatedAt?: InputMaybe<Scalars['DateTime']['input']>;
};

/** A new customisation of an existing component. */
export type CreateCustomisationInput = {
  /** Display name: 1 to 200 characters after trimming. */
  name: Scalars['String']['input'];
  /** Kind of customisation: 1 to 50 characters, any value. */
  type: Scalars['String']['input'];
  /** Price: 0 to 9999999999.99, with at most two decimals. */
  price: Scalars['Float']['input'];
  /** How its price counts: added (`ADD`, when left out) or replacing the product's base price. */
  priceMode?: InputMaybe<PriceMode>;
  /** When given, the write fails with `CONFLICT` if the component's product changed after this time. */
  expectedUpdatedAt?: InputMaybe<Scalars['DateTime']['input']>;
};

/** Changes to a customisation; a field left out keeps its value. */
export type UpdateCustomisationInput = {
  /** Display name: 1 to 200 characters after trimming. */
  name?: InputMaybe<Scalars['String']['input']>;
  /** Kind of customisation: 1 to 50 characters, any value. */
  type?: InputMaybe<Scalars['String']['input']>;
  /** Price: 0 to 9999999999.99, with at most two decimals. */
  price?: InputMaybe<Scalars['Float']['input']>;
  /** How its price counts: added (`ADD`) or replacing the product's base price. */
  priceMode?: InputMaybe<PriceMode>;
  /** When given, the update fails with `CONFLICT` if the customisation's product changed after this time. */
  expectedUpdatedAt?: InputMaybe<Scalars['DateTime']['input']>;
};

/**
 * A customisation named the way `upsertProduct` matches children: its step's `order`, its
 * component's `position` within the step and its `name` (compared trimmed) within the component.
 */
export type CustomisationRef = {
  /** The `order` of the customisation's step. */
  stepOrder: Scalars['Int']['input'];
  /** The `position` of the customisation's component within its step. */
  componentPosition: Scalars['Int']['input'];
  /** The customisation's name. */
  name: Scalars['String']['input'];
};

/** A rule of a whole-product write, its ends named in the product's tree. */
export type RuleInput = {
  /** `REQUIRES` (choosing `customisation` needs `other`) or `EXCLUDES` (not both; either way round). */
  kind: RuleKind;
  /** The customisation the rule is about. */
  customisation: CustomisationRef;
  /** The other customisation: a different one. */
  other: CustomisationRef;
  /** Shown instead of the default violation message: 1 to 1000 characters after trimming. */
  message?: InputMaybe<Scalars['String']['input']>;
};

/** A new rule between two customisations of a product. */
export type CreateRuleInput = {
  /** `REQUIRES` (choosing `customisationId` needs `otherCustomisationId`) or `EXCLUDES` (not both). */
  kind: RuleKind;
  /** A customisation of the product. */
  customisationId: Scalars['ID']['input'];
  /** Another customisation of the product. */
  otherCustomisationId: Scalars['ID']['input'];
  /** Shown instead of the default violation message: 1 to 1000 characters after trimming. */
  message?: InputMaybe<Scalars['String']['input']>;
  /** When given, the write fails with `CONFLICT` if the product changed after this time. */
  expectedUpdatedAt?: InputMaybe<Scalars['DateTime']['input']>;
};

/** A page of products, in the order the query asked for (by id ascending unless `orderBy` says otherwise). */
export type ProductPaginator = {
  __typename?: 'ProductPaginator';
  /** The products of this page, in the query's order: at most `first` of them, possibly none. */
  data: Array<Product>;
  /** Paging metadata of this page; `total` counts the products that match the query's `search` and `filter`. */
  paginatorInfo: PaginatorInfo;
};

/** Which products a page holds, besides `search`; every field given must hold (AND). */
export type ProductFilter = {
  /**
   * Only the products with one of these skus (exact, case-sensitive): at most 100. An empty list
   * matches no product.
   */
  skus?: InputMaybe<Array<Scalars['String']['input']>>;
  /**
   * Only the products changed after this instant (strictly): the product itself or anything in
   * its tree. With `orderBy: [{ column: UPDATED_AT, order: ASC }]` this is a sync ("everything
   * changed since"). It cannot see deleted products: see docs/graphql-api.md.
   */
  updatedAfter?: InputMaybe<Scalars['DateTime']['input']>;
};

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

/** One clause of `orderBy` (Lighthouse's shape). */
export type ProductOrderBy = {
  /** The column to sort by. */
  column: ProductOrderColumn;
  /** The direction; ascending when left out or null. */
  order?: InputMaybe<SortOrder>;
};



export type ResolverTypeWrapper<T> = Promise<T> | T;

export type ReferenceResolver<TResult, TReference, TContext> = (
      reference: TReference,
      context: TContext,
      info: GraphQLResolveInfo
    ) => Promise<TResult> | TResult;

      type ScalarCheck<T, S> = S extends true ? T : NullableCheck<T, S>;
      type NullableCheck<T, S> = Maybe<T> extends T ? Maybe<ListCheck<NonNullable<T>, S>> : ListCheck<T, S>;
      type ListCheck<T, S> = T extends (infer U)[] ? NullableCheck<U, S>[] : GraphQLRecursivePick<T, S>;
      export type GraphQLRecursivePick<T, S> = { [K in keyof T & keyof S]: ScalarCheck<T[K], S[K]> };
    

export type ResolverWithResolve<TResult, TParent, TContext, TArgs> = {
  resolve: ResolverFn<TResult, TParent, TContext, TArgs>;
};
export type Resolver<TResult, TParent = Record<PropertyKey, never>, TContext = Record<PropertyKey, never>, TArgs = Record<PropertyKey, never>> = ResolverFn<TResult, TParent, TContext, TArgs> | ResolverWithResolve<TResult, TParent, TContext, TArgs>;

export type ResolverFn<TResult, TParent, TContext, TArgs> = (
  parent: TParent,
  args: TArgs,
  context: TContext,
  info: GraphQLResolveInfo
) => Promise<TResult> | TResult;

export type SubscriptionSubscribeFn<TResult, TParent, TContext, TArgs> = (
  parent: TParent,
  args: TArgs,
  context: TContext,
  info: GraphQLResolveInfo
) => AsyncIterable<TResult> | Promise<AsyncIterable<TResult>>;

export type SubscriptionResolveFn<TResult, TParent, TContext, TArgs> = (
  parent: TParent,
  args: TArgs,
  context: TContext,
  info: GraphQLResolveInfo
) => TResult | Promise<TResult>;

export interface SubscriptionSubscriberObject<TResult, TKey extends string, TParent, TContext, TArgs> {
  subscribe: SubscriptionSubscribeFn<{ [key in TKey]: TResult }, TParent, TContext, TArgs>;
  resolve?: SubscriptionResolveFn<TResult, { [key in TKey]: TResult }, TContext, TArgs>;
}

export interface SubscriptionResolverObject<TResult, TParent, TContext, TArgs> {
  subscribe: SubscriptionSubscribeFn<any, TParent, TContext, TArgs>;
  resolve: SubscriptionResolveFn<TResult, any, TContext, TArgs>;
}

export type SubscriptionObject<TResult, TKey extends string, TParent, TContext, TArgs> =
  | SubscriptionSubscriberObject<TResult, TKey, TParent, TContext, TArgs>
  | SubscriptionResolverObject<TResult, TParent, TContext, TArgs>;

export type SubscriptionResolver<TResult, TKey extends string, TParent = Record<PropertyKey, never>, TContext = Record<PropertyKey, never>, TArgs = Record<PropertyKey, never>> =
  | ((...args: any[]) => SubscriptionObject<TResult, TKey, TParent, TContext, TArgs>)
  | SubscriptionObject<TResult, TKey, TParent, TContext, TArgs>;

export type TypeResolveFn<TTypes, TParent = Record<PropertyKey, never>, TContext = Record<PropertyKey, never>> = (
  parent: TParent,
  context: TContext,
  info: GraphQLResolveInfo
) => Maybe<TTypes> | Promise<Maybe<TTypes>>;

export type IsTypeOfResolverFn<T = Record<PropertyKey, never>, TContext = Record<PropertyKey, never>> = (obj: T, context: TContext, info: GraphQLResolveInfo) => boolean | Promise<boolean>;

export type NextResolverFn<T> = () => Promise<T>;

export type DirectiveResolverFn<TResult = Record<PropertyKey, never>, TParent = Record<PropertyKey, never>, TContext = Record<PropertyKey, never>, TArgs = Record<PropertyKey, never>> = (
  next: NextResolverFn<TResult>,
  parent: TParent,
  args: TArgs,
  context: TContext,
  info: GraphQLResolveInfo
) => TResult | Promise<TResult>;

/** Mapping of federation types */
export type FederationTypes = {
  Component: Component;
  Product: Product;
  Step: Step;
  Customisation: Customisation;
};

/** Mapping of federation reference types */
export type FederationReferenceTypes = {
  Component:
    ( { __typename: 'Component' }
    & GraphQLRecursivePick<FederationTypes['Component'], {"id":true}> );
  Product:
    ( { __typename: 'Product' }
    & GraphQLRecursivePick<FederationTypes['Product'], {"id":true}> );
  Step:
    ( { __typename: 'Step' }
    & GraphQLRecursivePick<FederationTypes['Step'], {"id":true}> );
  Customisation:
    ( { __typename: 'Customisation' }
    & GraphQLRecursivePick<FederationTypes['Customisation'], {"id":true}> );
};



/** Mapping between all available schema types and the resolvers types */
export type ResolversTypes = {
  Query: ResolverTypeWrapper<Record<PropertyKey, never>>;
  ID: ResolverTypeWrapper<Scalars['ID']['output']>;
  Int: ResolverTypeWrapper<Scalars['Int']['output']>;
  String: ResolverTypeWrapper<Scalars['String']['output']>;
  Mutation: ResolverTypeWrapper<Record<PropertyKey, never>>;
  DateTime: ResolverTypeWrapper<Scalars['DateTime']['output']>;
  PaginatorInfo: ResolverTypeWrapper<PaginatorInfo>;
  Boolean: ResolverTypeWrapper<Scalars['Boolean']['output']>;
  Component: ResolverTypeWrapper<ComponentParent>;
  Decimal: ResolverTypeWrapper<Scalars['Decimal']['output']>;
  PriceMode: PriceMode;
  RuleKind: RuleKind;
  ConfigurationRule: ResolverTypeWrapper<ConfigurationRuleParent>;
  Product: ResolverTypeWrapper<ProductParent>;
  Float: ResolverTypeWrapper<Scalars['Float']['output']>;
  Step: ResolverTypeWrapper<StepParent>;
  Customisation: ResolverTypeWrapper<CustomisationParent>;
  SelectionInput: SelectionInput;
  Money: ResolverTypeWrapper<MoneyParent>;
  PriceLine: ResolverTypeWrapper<PriceLineParent>;
  PriceBreakdown: ResolverTypeWrapper<PriceBreakdownParent>;
  ViolationCode: ViolationCode;
  Violation: ResolverTypeWrapper<Violation>;
  ConfigurationCheck: ResolverTypeWrapper<ConfigurationCheckParent>;
  CreateProductInput: CreateProductInput;
  ProductStepInput: ProductStepInput;
  StepComponentInput: StepComponentInput;
  ComponentCustomisationInput: ComponentCustomisationInput;
  UpdateProductInput: UpdateProductInput;
  UpsertProductInput: UpsertProductInput;
  UpsertStepInput: UpsertStepInput;
  UpsertComponentInput: UpsertComponentInput;
  UpsertCustomisationInput: UpsertCustomisationInput;
  CreateStepInput: CreateStepInput;
  UpdateStepInput: UpdateStepInput;
  CreateComponentInput: CreateComponentInput;
  UpdateComponentInput: UpdateComponentInput;
  CreateCustomisationInput: CreateCustomisationInput;
  UpdateCustomisationInput: UpdateCustomisationInput;
  CustomisationRef: CustomisationRef;
  RuleInput: RuleInput;
  CreateRuleInput: CreateRuleInput;
  ProductPaginator: ResolverTypeWrapper<ProductPage>;
  ProductFilter: ProductFilter;
  ProductOrderColumn: ProductOrderColumn;
  SortOrder: SortOrder;
  ProductOrderBy: ProductOrderBy;
};

/** Mapping between all available schema types and the resolvers parents */
export type ResolversParentTypes = {
  Query: Record<PropertyKey, never>;
  ID: Scalars['ID']['output'];
  Int: Scalars['Int']['output'];
  String: Scalars['String']['output'];
  Mutation: Record<PropertyKey, never>;
  DateTime: Scalars['DateTime']['output'];
  PaginatorInfo: PaginatorInfo;
  Boolean: Scalars['Boolean']['output'];
  Component: ComponentParent;
  Decimal: Scalars['Decimal']['output'];
  ConfigurationRule: ConfigurationRuleParent;
  Product: ProductParent;
  Float: Scalars['Float']['output'];
  Step: StepParent;
  Customisation: CustomisationParent;
  SelectionInput: SelectionInput;
  Money: MoneyParent;
  PriceLine: PriceLineParent;
  PriceBreakdown: PriceBreakdownParent;
  Violation: Violation;
  ConfigurationCheck: ConfigurationCheckParent;
  CreateProductInput: CreateProductInput;
  ProductStepInput: ProductStepInput;
  StepComponentInput: StepComponentInput;
  ComponentCustomisationInput: ComponentCustomisationInput;
  UpdateProductInput: UpdateProductInput;
  UpsertProductInput: UpsertProductInput;
  UpsertStepInput: UpsertStepInput;
  UpsertComponentInput: UpsertComponentInput;
  UpsertCustomisationInput: UpsertCustomisationInput;
  CreateStepInput: CreateStepInput;
  UpdateStepInput: UpdateStepInput;
  CreateComponentInput: CreateComponentInput;
  UpdateComponentInput: UpdateComponentInput;
  CreateCustomisationInput: CreateCustomisationInput;
  UpdateCustomisationInput: UpdateCustomisationInput;
  CustomisationRef: CustomisationRef;
  RuleInput: RuleInput;
  CreateRuleInput: CreateRuleInput;
  ProductPaginator: ProductPage;
  ProductFilter: ProductFilter;
  ProductOrderBy: ProductOrderBy;
};

export type SharedCacheDirectiveArgs = { };

export type SharedCacheDirectiveResolver<Result, Parent, ContextType = CatalogContext, Args = SharedCacheDirectiveArgs> = DirectiveResolverFn<Result, Parent, ContextType, Args>;

export type QueryResolvers<ContextType = CatalogContext, ParentType extends ResolversParentTypes['Query'] = ResolversParentTypes['Query']> = {
  configure?: Resolver<Maybe<ResolversTypes['ConfigurationCheck']>, ParentType, ContextType, RequireFields<QueryConfigureArgs, 'productId' | 'selections'>>;
  products?: Resolver<ResolversTypes['ProductPaginator'], ParentType, ContextType, RequireFields<QueryProductsArgs, 'first'>>;
  product?: Resolver<Maybe<ResolversTypes['Product']>, ParentType, ContextType, RequireFields<QueryProductArgs, 'id'>>;
  productBySku?: Resolver<Maybe<ResolversTypes['Product']>, ParentType, ContextType, RequireFields<QueryProductBySkuArgs, 'sku'>>;
};

export type MutationResolvers<ContextType = CatalogContext, ParentType extends ResolversParentTypes['Mutation'] = ResolversParentTypes['Mutation']> = {
  createProduct?: Resolver<ResolversTypes['Product'], ParentType, ContextType, RequireFields<MutationCreateProductArgs, 'input'>>;
  updateProduct?: Resolver<ResolversTypes['Product'], ParentType, ContextType, RequireFields<MutationUpdateProductArgs, 'id' | 'input'>>;
  deleteProduct?: Resolver<ResolversTypes['Product'], ParentType, ContextType, RequireFields<MutationDeleteProductArgs, 'id'>>;
  upsertProduct?: Resolver<ResolversTypes['Product'], ParentType, ContextType, RequireFields<MutationUpsertProductArgs, 'input'>>;
  createStep?: Resolver<ResolversTypes['Step'], ParentType, ContextType, RequireFields<MutationCreateStepArgs, 'productId' | 'input'>>;
  updateStep?: Resolver<ResolversTypes['Step'], ParentType, ContextType, RequireFields<MutationUpdateStepArgs, 'id' | 'input'>>;
  deleteStep?: Resolver<ResolversTypes['Step'], ParentType, ContextType, RequireFields<MutationDeleteStepArgs, 'id'>>;
  createComponent?: Resolver<ResolversTypes['Component'], ParentType, ContextType, RequireFields<MutationCreateComponentArgs, 'stepId' | 'input'>>;
  updateComponent?: Resolver<ResolversTypes['Component'], ParentType, ContextType, RequireFields<MutationUpdateComponentArgs, 'id' | 'input'>>;
  deleteComponent?: Resolver<ResolversTypes['Component'], ParentType, ContextType, RequireFields<MutationDeleteComponentArgs, 'id'>>;
  createCustomisation?: Resolver<ResolversTypes['Customisation'], ParentType, ContextType, RequireFields<MutationCreateCustomisationArgs, 'componentId' | 'input'>>;
  updateCustomisation?: Resolver<ResolversTypes['Customisation'], ParentType, ContextType, RequireFields<MutationUpdateCustomisationArgs, 'id' | 'input'>>;
  deleteCustomisation?: Resolver<ResolversTypes['Customisation'], ParentType, ContextType, RequireFields<MutationDeleteCustomisationArgs, 'id'>>;
  reorderSteps?: Resolver<ResolversTypes['Product'], ParentType, ContextType, RequireFields<MutationReorderStepsArgs, 'productId' | 'stepIds'>>;
  reorderComponents?: Resolver<ResolversTypes['Step'], ParentType, ContextType, RequireFields<MutationReorderComponentsArgs, 'stepId' | 'componentIds'>>;
  createRule?: Resolver<ResolversTypes['ConfigurationRule'], ParentType, ContextType, RequireFields<MutationCreateRuleArgs, 'productId' | 'input'>>;
  deleteRule?: Resolver<ResolversTypes['ConfigurationRule'], ParentType, ContextType, RequireFields<MutationDeleteRuleArgs, 'id'>>;
};

export interface DateTimeScalarConfig extends GraphQLScalarTypeConfig<ResolversTypes['DateTime'], any> {
  name: 'DateTime';
}

export type PaginatorInfoResolvers<ContextType = CatalogContext, ParentType extends ResolversParentTypes['PaginatorInfo'] = ResolversParentTypes['PaginatorInfo']> = {
  count?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  currentPage?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  firstItem?: Resolver<Maybe<ResolversTypes['Int']>, ParentType, ContextType>;
  hasMorePages?: Resolver<ResolversTypes['Boolean'], ParentType, ContextType>;
  lastItem?: Resolver<Maybe<ResolversTypes['Int']>, ParentType, ContextType>;
  lastPage?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  perPage?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  total?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  endCursor?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
};

export type ComponentResolvers<ContextType = CatalogContext, ParentType extends ResolversParentTypes['Component'] = ResolversParentTypes['Component'], FederationReferenceType extends FederationReferenceTypes['Component'] = FederationReferenceTypes['Component']> = {
  __resolveReference?: ReferenceResolver<Maybe<ResolversTypes['Component']> | FederationReferenceType, FederationReferenceType, ContextType>;
  id?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  name?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  position?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  customisations?: Resolver<Array<ResolversTypes['Customisation']>, ParentType, ContextType>;
  createdAt?: Resolver<ResolversTypes['DateTime'], ParentType, ContextType>;
  updatedAt?: Resolver<ResolversTypes['DateTime'], ParentType, ContextType>;
  minSelections?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  maxSelections?: Resolver<Maybe<ResolversTypes['Int']>, ParentType, ContextType>;
};

export interface DecimalScalarConfig extends GraphQLScalarTypeConfig<ResolversTypes['Decimal'], any> {
  name: 'Decimal';
}

export type ConfigurationRuleResolvers<ContextType = CatalogContext, ParentType extends ResolversParentTypes['ConfigurationRule'] = ResolversParentTypes['ConfigurationRule']> = {
  id?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  kind?: Resolver<ResolversTypes['RuleKind'], ParentType, ContextType>;
  customisation?: Resolver<ResolversTypes['Customisation'], ParentType, ContextType>;
  other?: Resolver<ResolversTypes['Customisation'], ParentType, ContextType>;
  message?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
};

export type ProductResolvers<ContextType = CatalogContext, ParentType extends ResolversParentTypes['Product'] = ResolversParentTypes['Product'], FederationReferenceType extends FederationReferenceTypes['Product'] = FederationReferenceTypes['Product']> = {
  __resolveReference?: ReferenceResolver<Maybe<ResolversTypes['Product']> | FederationReferenceType, FederationReferenceType, ContextType>;
  basePrice?: Resolver<ResolversTypes['Float'], ParentType, ContextType>;
  currency?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  rules?: Resolver<Array<ResolversTypes['ConfigurationRule']>, ParentType, ContextType>;
  id?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  name?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  sku?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  steps?: Resolver<Array<ResolversTypes['Step']>, ParentType, ContextType>;
  createdAt?: Resolver<ResolversTypes['DateTime'], ParentType, ContextType>;
  updatedAt?: Resolver<ResolversTypes['DateTime'], ParentType, ContextType>;
};

export type StepResolvers<ContextType = CatalogContext, ParentType extends ResolversParentTypes['Step'] = ResolversParentTypes['Step'], FederationReferenceType extends FederationReferenceTypes['Step'] = FederationReferenceTypes['Step']> = {
  __resolveReference?: ReferenceResolver<Maybe<ResolversTypes['Step']> | FederationReferenceType, FederationReferenceType, ContextType>;
  required?: Resolver<ResolversTypes['Boolean'], ParentType, ContextType>;
  id?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  name?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  order?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  components?: Resolver<Array<ResolversTypes['Component']>, ParentType, ContextType>;
  createdAt?: Resolver<ResolversTypes['DateTime'], ParentType, ContextType>;
  updatedAt?: Resolver<ResolversTypes['DateTime'], ParentType, ContextType>;
};

export type CustomisationResolvers<ContextType = CatalogContext, ParentType extends ResolversParentTypes['Customisation'] = ResolversParentTypes['Customisation'], FederationReferenceType extends FederationReferenceTypes['Customisation'] = FederationReferenceTypes['Customisation']> = {
  __resolveReference?: ReferenceResolver<Maybe<ResolversTypes['Customisation']> | FederationReferenceType, FederationReferenceType, ContextType>;
  priceMode?: Resolver<ResolversTypes['PriceMode'], ParentType, ContextType>;
  id?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  name?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  type?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  price?: Resolver<ResolversTypes['Float'], ParentType, ContextType>;
  createdAt?: Resolver<ResolversTypes['DateTime'], ParentType, ContextType>;
  updatedAt?: Resolver<ResolversTypes['DateTime'], ParentType, ContextType>;
};

export type MoneyResolvers<ContextType = CatalogContext, ParentType extends ResolversParentTypes['Money'] = ResolversParentTypes['Money']> = {
  amount?: Resolver<ResolversTypes['Decimal'], ParentType, ContextType>;
  currency?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
};

export type PriceLineResolvers<ContextType = CatalogContext, ParentType extends ResolversParentTypes['PriceLine'] = ResolversParentTypes['PriceLine']> = {
  customisationId?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  name?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  mode?: Resolver<ResolversTypes['PriceMode'], ParentType, ContextType>;
  amount?: Resolver<ResolversTypes['Money'], ParentType, ContextType>;
  customisation?: Resolver<Maybe<ResolversTypes['Customisation']>, ParentType, ContextType>;
};

export type PriceBreakdownResolvers<ContextType = CatalogContext, ParentType extends ResolversParentTypes['PriceBreakdown'] = ResolversParentTypes['PriceBreakdown']> = {
  base?: Resolver<ResolversTypes['Money'], ParentType, ContextType>;
  lines?: Resolver<Array<ResolversTypes['PriceLine']>, ParentType, ContextType>;
  total?: Resolver<ResolversTypes['Money'], ParentType, ContextType>;
};

export type ViolationResolvers<ContextType = CatalogContext, ParentType extends ResolversParentTypes['Violation'] = ResolversParentTypes['Violation']> = {
  code?: Resolver<ResolversTypes['ViolationCode'], ParentType, ContextType>;
  message?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  stepId?: Resolver<Maybe<ResolversTypes['ID']>, ParentType, ContextType>;
  componentId?: Resolver<Maybe<ResolversTypes['ID']>, ParentType, ContextType>;
  customisationId?: Resolver<Maybe<ResolversTypes['ID']>, ParentType, ContextType>;
  otherCustomisationId?: Resolver<Maybe<ResolversTypes['ID']>, ParentType, ContextType>;
};

export type ConfigurationCheckResolvers<ContextType = CatalogContext, ParentType extends ResolversParentTypes['ConfigurationCheck'] = ResolversParentTypes['ConfigurationCheck']> = {
  product?: Resolver<ResolversTypes['Product'], ParentType, ContextType>;
  valid?: Resolver<ResolversTypes['Boolean'], ParentType, ContextType>;
  violations?: Resolver<Array<ResolversTypes['Violation']>, ParentType, ContextType>;
  price?: Resolver<ResolversTypes['PriceBreakdown'], ParentType, ContextType>;
};

export type ProductPaginatorResolvers<ContextType = CatalogContext, ParentType extends ResolversParentTypes['ProductPaginator'] = ResolversParentTypes['ProductPaginator']> = {
  data?: Resolver<Array<ResolversTypes['Product']>, ParentType, ContextType>;
  paginatorInfo?: Resolver<ResolversTypes['PaginatorInfo'], ParentType, ContextType>;
};

export type Resolvers<ContextType = CatalogContext> = {
  Query?: QueryResolvers<ContextType>;
  Mutation?: MutationResolvers<ContextType>;
  DateTime?: GraphQLScalarType;
  PaginatorInfo?: PaginatorInfoResolvers<ContextType>;
  Component?: ComponentResolvers<ContextType>;
  Decimal?: GraphQLScalarType;
  ConfigurationRule?: ConfigurationRuleResolvers<ContextType>;
  Product?: ProductResolvers<ContextType>;
  Step?: StepResolvers<ContextType>;
  Customisation?: CustomisationResolvers<ContextType>;
  Money?: MoneyResolvers<ContextType>;
  PriceLine?: PriceLineResolvers<ContextType>;
  PriceBreakdown?: PriceBreakdownResolvers<ContextType>;
  Violation?: ViolationResolvers<ContextType>;
  ConfigurationCheck?: ConfigurationCheckResolvers<ContextType>;
  ProductPaginator?: ProductPaginatorResolvers<ContextType>;
};

export type DirectiveResolvers<ContextType = CatalogContext> = {
  sharedCache?: SharedCacheDirectiveResolver<any, any, ContextType>;
};

import type { GraphQLResolveInfo } from 'graphql';
import type { ProductParent, StepParent, ComponentParent, CustomisationParent } from '../mappers.ts';
import type { ProductPage } from '../service.ts';
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
  _FieldSet: { input: unknown; output: unknown; }
};

/**
 * The root of every read. Each module adds its own fields with `extend type Query`.
 * Every operation needs the header `Authorization: Bearer <token>`, with a token issued by
 * `POST /api/v1/login`; without a valid one the answer is HTTP 401 with the error code
 * `UNAUTHENTICATED`.
 */
export type Query = {
  __typename?: 'Query';
  /**
   * A page of products ordered by id ascending. Ask for the first page with `first` alone; ask
   * for the next with `first` and `after` set to the previous page's `paginatorInfo.endCursor`.
   * Errors (code `BAD_USER_INPUT`): `first` outside 1 to the maximum page size, and a malformed
   * or corrupted `after` cursor (`Invalid cursor.`).
   */
  products: ProductPaginator;
  /** One product by its id, or null when no product has that id (including ids that are not positive integers). */
  product?: Maybe<Product>;
};


/**
 * The root of every read. Each module adds its own fields with `extend type Query`.
 * Every operation needs the header `Authorization: Bearer <token>`, with a token issued by
 * `POST /api/v1/login`; without a valid one the answer is HTTP 401 with the error code
 * `UNAUTHENTICATED`.
 */
export type QueryProductsArgs = {
  first?: Scalars['Int']['input'];
  after?: InputMaybe<Scalars['String']['input']>;
};


/**
 * The root of every read. Each module adds its own fields with `extend type Query`.
 * Every operation needs the header `Authorization: Bearer <token>`, with a token issued by
 * `POST /api/v1/login`; without a valid one the answer is HTTP 401 with the error code
 * `UNAUTHENTICATED`.
 */
export type QueryProductArgs = {
  id: Scalars['ID']['input'];
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
   * The ways the component can be customised, ordered by id ascending. Never null; an empty list
   * when the component has none.
   */
  customisations: Array<Customisation>;
};

/**
 * One option for customising a component, with its kind and price. Other subgraphs (an order or
 * a cart) may reference the options a customer chose by `id`.
 */
export type Customisation = {
  __typename?: 'Customisation';
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
   * Price of the customisation in the instance's catalogue currency (major units, e.g. euros, not
   * cents): at least 0, at most 9999999999.99, with at most two decimals. Stored exactly as
   * numeric(12,2) and sent as the nearest Float, which prints back as the stored value: 0.29
   * arrives as 0.29.
   */
  price: Scalars['Float']['output'];
};

/**
 * A configurable product of the catalogue: a name, a stock-keeping code and the ordered steps
 * a customer goes through to configure it. Other subgraphs may reference a product by `id`.
 */
export type Product = {
  __typename?: 'Product';
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
};

/** A page of products, ordered by id ascending. */
export type ProductPaginator = {
  __typename?: 'ProductPaginator';
  /** The products of this page, ordered by id ascending: at most `first` of them, possibly none. */
  data: Array<Product>;
  /** Paging metadata of this page. */
  paginatorInfo: PaginatorInfo;
};

/**
 * One step of a product's configuration, such as "Choose a frame". Other subgraphs may
 * reference a step by `id`.
 */
export type Step = {
  __typename?: 'Step';
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
  Customisation: Customisation;
  Product: Product;
  Step: Step;
};

/** Mapping of federation reference types */
export type FederationReferenceTypes = {
  Component:
    ( { __typename: 'Component' }
    & GraphQLRecursivePick<FederationTypes['Component'], {"id":true}> );
  Customisation:
    ( { __typename: 'Customisation' }
    & GraphQLRecursivePick<FederationTypes['Customisation'], {"id":true}> );
  Product:
    ( { __typename: 'Product' }
    & GraphQLRecursivePick<FederationTypes['Product'], {"id":true}> );
  Step:
    ( { __typename: 'Step' }
    & GraphQLRecursivePick<FederationTypes['Step'], {"id":true}> );
};



/** Mapping between all available schema types and the resolvers types */
export type ResolversTypes = {
  Query: ResolverTypeWrapper<Record<PropertyKey, never>>;
  Int: ResolverTypeWrapper<Scalars['Int']['output']>;
  String: ResolverTypeWrapper<Scalars['String']['output']>;
  ID: ResolverTypeWrapper<Scalars['ID']['output']>;
  PaginatorInfo: ResolverTypeWrapper<PaginatorInfo>;
  Boolean: ResolverTypeWrapper<Scalars['Boolean']['output']>;
  Component: ResolverTypeWrapper<ComponentParent>;
  Customisation: ResolverTypeWrapper<CustomisationParent>;
  Float: ResolverTypeWrapper<Scalars['Float']['output']>;
  Product: ResolverTypeWrapper<ProductParent>;
  ProductPaginator: ResolverTypeWrapper<ProductPage>;
  Step: ResolverTypeWrapper<StepParent>;
};

/** Mapping between all available schema types and the resolvers parents */
export type ResolversParentTypes = {
  Query: Record<PropertyKey, never>;
  Int: Scalars['Int']['output'];
  String: Scalars['String']['output'];
  ID: Scalars['ID']['output'];
  PaginatorInfo: PaginatorInfo;
  Boolean: Scalars['Boolean']['output'];
  Component: ComponentParent;
  Customisation: CustomisationParent;
  Float: Scalars['Float']['output'];
  Product: ProductParent;
  ProductPaginator: ProductPage;
  Step: StepParent;
};

export type QueryResolvers<ContextType = CatalogContext, ParentType extends ResolversParentTypes['Query'] = ResolversParentTypes['Query']> = {
  products?: Resolver<ResolversTypes['ProductPaginator'], ParentType, ContextType, RequireFields<QueryProductsArgs, 'first'>>;
  product?: Resolver<Maybe<ResolversTypes['Product']>, ParentType, ContextType, RequireFields<QueryProductArgs, 'id'>>;
};

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
  customisations?: Resolver<Array<ResolversTypes['Customisation']>, ParentType, ContextType>;
};

export type CustomisationResolvers<ContextType = CatalogContext, ParentType extends ResolversParentTypes['Customisation'] = ResolversParentTypes['Customisation'], FederationReferenceType extends FederationReferenceTypes['Customisation'] = FederationReferenceTypes['Customisation']> = {
  __resolveReference?: ReferenceResolver<Maybe<ResolversTypes['Customisation']> | FederationReferenceType, FederationReferenceType, ContextType>;
  id?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  name?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  type?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  price?: Resolver<ResolversTypes['Float'], ParentType, ContextType>;
};

export type ProductResolvers<ContextType = CatalogContext, ParentType extends ResolversParentTypes['Product'] = ResolversParentTypes['Product'], FederationReferenceType extends FederationReferenceTypes['Product'] = FederationReferenceTypes['Product']> = {
  __resolveReference?: ReferenceResolver<Maybe<ResolversTypes['Product']> | FederationReferenceType, FederationReferenceType, ContextType>;
  id?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  name?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  sku?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  steps?: Resolver<Array<ResolversTypes['Step']>, ParentType, ContextType>;
};

export type ProductPaginatorResolvers<ContextType = CatalogContext, ParentType extends ResolversParentTypes['ProductPaginator'] = ResolversParentTypes['ProductPaginator']> = {
  data?: Resolver<Array<ResolversTypes['Product']>, ParentType, ContextType>;
  paginatorInfo?: Resolver<ResolversTypes['PaginatorInfo'], ParentType, ContextType>;
};

export type StepResolvers<ContextType = CatalogContext, ParentType extends ResolversParentTypes['Step'] = ResolversParentTypes['Step'], FederationReferenceType extends FederationReferenceTypes['Step'] = FederationReferenceTypes['Step']> = {
  __resolveReference?: ReferenceResolver<Maybe<ResolversTypes['Step']> | FederationReferenceType, FederationReferenceType, ContextType>;
  id?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  name?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  order?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  components?: Resolver<Array<ResolversTypes['Component']>, ParentType, ContextType>;
};

export type Resolvers<ContextType = CatalogContext> = {
  Query?: QueryResolvers<ContextType>;
  PaginatorInfo?: PaginatorInfoResolvers<ContextType>;
  Component?: ComponentResolvers<ContextType>;
  Customisation?: CustomisationResolvers<ContextType>;
  Product?: ProductResolvers<ContextType>;
  ProductPaginator?: ProductPaginatorResolvers<ContextType>;
  Step?: StepResolvers<ContextType>;
};


import type { GraphQLResolveInfo, GraphQLScalarType, GraphQLScalarTypeConfig } from 'graphql';
import type { AuthRequestContext } from '../context.ts';
export type Maybe<T> = T | null;
export type InputMaybe<T> = Maybe<T>;
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
  /** Who is asking: needs only a valid token, no ability. */
  me: Me;
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
 * The caller of a request: the user its token belongs to, and that token. Private to the caller:
 * never served from the shared response cache.
 */
export type Me = {
  __typename?: 'Me';
  /** Who the token belongs to. */
  user: MeUser;
  /** The token this request carried. */
  token: MeToken;
};

/** The user a token belongs to. */
export type MeUser = {
  __typename?: 'MeUser';
  /** The user's id. */
  id: Scalars['ID']['output'];
  /** The user's display name. */
  name: Scalars['String']['output'];
  /** The address the user signs in with, lowercased. */
  email: Scalars['String']['output'];
  /** Administrators may write the catalogue (`catalog:write`) and revoke anyone's token. */
  isAdmin: Scalars['Boolean']['output'];
};

/** The token a request was sent with. */
export type MeToken = {
  __typename?: 'MeToken';
  /** The `<id>` of the token's `<id>|<secret>`; `DELETE /api/v1/tokens/{id}` revokes it. */
  id: Scalars['ID']['output'];
  /** The name given at login (`login`) or at `POST /api/v1/tokens`. */
  name: Scalars['String']['output'];
  /** The abilities as stored; `*` grants every ability the user's role allows. */
  abilities: Array<Scalars['String']['output']>;
  /** When the token stops working (its own expiry or the instance's token lifetime); null: never. */
  expiresAt?: Maybe<Scalars['DateTime']['output']>;
};



export type ResolverTypeWrapper<T> = Promise<T> | T;


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





/** Mapping between all available schema types and the resolvers types */
export type ResolversTypes = {
  Query: ResolverTypeWrapper<Record<PropertyKey, never>>;
  Mutation: ResolverTypeWrapper<Record<PropertyKey, never>>;
  DateTime: ResolverTypeWrapper<Scalars['DateTime']['output']>;
  PaginatorInfo: ResolverTypeWrapper<PaginatorInfo>;
  Int: ResolverTypeWrapper<Scalars['Int']['output']>;
  Boolean: ResolverTypeWrapper<Scalars['Boolean']['output']>;
  String: ResolverTypeWrapper<Scalars['String']['output']>;
  Me: ResolverTypeWrapper<Me>;
  MeUser: ResolverTypeWrapper<MeUser>;
  ID: ResolverTypeWrapper<Scalars['ID']['output']>;
  MeToken: ResolverTypeWrapper<MeToken>;
};

/** Mapping between all available schema types and the resolvers parents */
export type ResolversParentTypes = {
  Query: Record<PropertyKey, never>;
  Mutation: Record<PropertyKey, never>;
  DateTime: Scalars['DateTime']['output'];
  PaginatorInfo: PaginatorInfo;
  Int: Scalars['Int']['output'];
  Boolean: Scalars['Boolean']['output'];
  String: Scalars['String']['output'];
  Me: Me;
  MeUser: MeUser;
  ID: Scalars['ID']['output'];
  MeToken: MeToken;
};

export type SharedCacheDirectiveArgs = { };

export type SharedCacheDirectiveResolver<Result, Parent, ContextType = AuthRequestContext, Args = SharedCacheDirectiveArgs> = DirectiveResolverFn<Result, Parent, ContextType, Args>;

export type QueryResolvers<ContextType = AuthRequestContext, ParentType extends ResolversParentTypes['Query'] = ResolversParentTypes['Query']> = {
  me?: Resolver<ResolversTypes['Me'], ParentType, ContextType>;
};

export interface DateTimeScalarConfig extends GraphQLScalarTypeConfig<ResolversTypes['DateTime'], any> {
  name: 'DateTime';
}

export type PaginatorInfoResolvers<ContextType = AuthRequestContext, ParentType extends ResolversParentTypes['PaginatorInfo'] = ResolversParentTypes['PaginatorInfo']> = {
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

export type MeResolvers<ContextType = AuthRequestContext, ParentType extends ResolversParentTypes['Me'] = ResolversParentTypes['Me']> = {
  user?: Resolver<ResolversTypes['MeUser'], ParentType, ContextType>;
  token?: Resolver<ResolversTypes['MeToken'], ParentType, ContextType>;
};

export type MeUserResolvers<ContextType = AuthRequestContext, ParentType extends ResolversParentTypes['MeUser'] = ResolversParentTypes['MeUser']> = {
  id?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  name?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  email?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  isAdmin?: Resolver<ResolversTypes['Boolean'], ParentType, ContextType>;
};

export type MeTokenResolvers<ContextType = AuthRequestContext, ParentType extends ResolversParentTypes['MeToken'] = ResolversParentTypes['MeToken']> = {
  id?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  name?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  abilities?: Resolver<Array<ResolversTypes['String']>, ParentType, ContextType>;
  expiresAt?: Resolver<Maybe<ResolversTypes['DateTime']>, ParentType, ContextType>;
};

export type Resolvers<ContextType = AuthRequestContext> = {
  Query?: QueryResolvers<ContextType>;
  DateTime?: GraphQLScalarType;
  PaginatorInfo?: PaginatorInfoResolvers<ContextType>;
  Me?: MeResolvers<ContextType>;
  MeUser?: MeUserResolvers<ContextType>;
  MeToken?: MeTokenResolvers<ContextType>;
};

export type DirectiveResolvers<ContextType = AuthRequestContext> = {
  sharedCache?: SharedCacheDirectiveResolver<any, any, ContextType>;
};

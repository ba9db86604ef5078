import { z } from 'zod';
import { group, intInRange, optionalInt, optionalNonEmpty } from './values.ts';

// The GraphQL endpoint: its limits, the GraphiQL page, the federation gateway's access.

// GraphQL edge limits (docs/security-and-limits.md says why each default).
export const graphql = group(
  {
    MAX_PAGE_SIZE: intInRange(1, 10_000).default(100),
    GRAPHQL_MAX_DEPTH: intInRange(1, 100).default(10),
    GRAPHQL_MAX_TOKENS: intInRange(10, 1_000_000).default(1000),
    GRAPHQL_MAX_ALIASES: intInRange(0, 10_000).default(15),
    GRAPHQL_MAX_DIRECTIVES: intInRange(0, 10_000).default(50),
    GRAPHQL_MAX_COST: intInRange(1, 100_000_000).default(5000),
    GRAPHQL_MAX_ANSWER_FIELDS: intInRange(1, 100_000_000).default(100_000),
    GRAPHQL_MAX_ANSWER_BYTES: intInRange(1024, 1024 * 1024 * 1024).default(4 * 1024 * 1024),
    GRAPHQL_MAX_BODY_BYTES: intInRange(1024, 100 * 1024 * 1024).default(1024 * 1024),
    GRAPHQL_MAX_IN_FLIGHT_PER_TOKEN: intInRange(1, 10_000).default(16),
    // Unset: twice the per-token cap, so minting tokens multiplies nobody's share by more than that.
    GRAPHQL_MAX_IN_FLIGHT_PER_USER: optionalInt(1, 100_000),
    // Over every route a customer company reaches, REST included; 0 turns it off.
    GRAPHQL_MAX_IN_FLIGHT_PER_TENANT: intInRange(0, 100_000).default(64),
    GRAPHQL_EXECUTION_TIMEOUT_MS: intInRange(1, 600_000).default(10_000),
    GRAPHQL_TRUSTED_DOCUMENTS: z
      .enum(['off', 'allow', 'require'], { error: 'must be off, allow or require' })
      .default('allow'),
  },
  (e) => ({
    /** Most items one page of a paginated list may hold. */
    maxPageSize: e.MAX_PAGE_SIZE,
    maxDepth: e.GRAPHQL_MAX_DEPTH,
    maxTokens: e.GRAPHQL_MAX_TOKENS,
    maxAliases: e.GRAPHQL_MAX_ALIASES,
    maxDirectives: e.GRAPHQL_MAX_DIRECTIVES,
    maxCost: e.GRAPHQL_MAX_COST,
    /** Most fields one answer may hold, counted with the catalogue's real list sizes before they are loaded. */
    maxAnswerFields: e.GRAPHQL_MAX_ANSWER_FIELDS,
    /** Most bytes of JSON one answer may hold, weighed before each part of it is built (messages and ids included). */
    maxAnswerBytes: e.GRAPHQL_MAX_ANSWER_BYTES,
    maxBodyBytes: e.GRAPHQL_MAX_BODY_BYTES,
    maxInFlightPerToken: e.GRAPHQL_MAX_IN_FLIGHT_PER_TOKEN,
    maxInFlightPerUser: e.GRAPHQL_MAX_IN_FLIGHT_PER_USER ?? 2 * e.GRAPHQL_MAX_IN_FLIGHT_PER_TOKEN,
    /** Requests one customer company may have in flight in this process, REST and GraphQL; 0: no bound. */
    maxInFlightPerTenant: e.GRAPHQL_MAX_IN_FLIGHT_PER_TENANT,
    executionTimeoutMs: e.GRAPHQL_EXECUTION_TIMEOUT_MS,
    /** Documents registered ahead of time, named by hash: off, allowed beside full documents, or required (docs/trusted-documents.md). */
    trustedDocuments: e.GRAPHQL_TRUSTED_DOCUMENTS,
  }),
);

// GraphiQL is served without a token: bound what clients that never read it can hold.
export const graphiql = group(
  {
    GRAPHIQL: z.enum(['on', 'off'], { error: 'must be on or off' }).default('on'),
    GRAPHIQL_MAX_CONCURRENT_SENDS: intInRange(1, 1000).default(8),
    GRAPHIQL_SEND_TIMEOUT_MS: intInRange(100, 600_000).default(30_000),
  },
  (e) => ({
    /** GRAPHIQL=off: no page at /graphql (404 for browsers); the API is unchanged. */
    enabled: e.GRAPHIQL === 'on',
    maxConcurrentSends: e.GRAPHIQL_MAX_CONCURRENT_SENDS,
    sendTimeoutMs: e.GRAPHIQL_SEND_TIMEOUT_MS,
  }),
);

export const federation = group(
  {
    FEDERATION_SECRET: optionalNonEmpty.pipe(
      z.string().min(32, { error: 'must be at least 32 characters (e.g. openssl rand -base64 48)' }).optional(),
    ),
    FEDERATION_MAX_REPRESENTATIONS: intInRange(1, 100_000).default(1000),
  },
  (e) => ({
    /** Shared with the federation gateway, which sends it as `Router-Authorization`; unset: `_entities` and `_service` answer nobody. */
    secret: e.FEDERATION_SECRET,
    maxRepresentations: e.FEDERATION_MAX_REPRESENTATIONS,
  }),
);

import { useGenericAuth } from '@envelop/generic-auth';
import { useCSRFPrevention } from '@graphql-yoga/plugin-csrf-prevention';
import { GraphQLError, type GraphQLSchema } from 'graphql';
import { createYoga, type Plugin } from 'graphql-yoga';
import type { Config } from '../config.ts';
import type { Db } from '../platform/db.ts';
import { unauthenticatedGraphQLError } from '../platform/errors.ts';
import { requestContext } from '../platform/request-context.ts';
import type { Logger } from '../platform/logger.ts';
import { createCatalogLoaders } from '../modules/catalog/loaders.ts';
import type { SessionUser } from '../modules/auth/service.ts';
import type { GraphQLContext, ServerContext } from './context.ts';
import { useCompiledExecution } from './jit.ts';
import { useExecutionDeadline } from './deadline.ts';
import { useExecutionLimits } from './execution-limits.ts';
import { createParseCaches, useGraphQLLimits, useUndeclaredBodyLimit } from './limits.ts';
import { maskDatabaseUnavailable, useOperationName } from './operations.ts';
import { MASKED_ERROR_MESSAGE, useOperationSelection } from './request-errors.ts';

export const GRAPHQL_PATH = '/graphql';

/**
 * Headers that prove a request went through a CORS preflight: a browser cannot
 * add them to a "simple" cross-site GET or form post. Yoga's own, and Apollo
 * Client's two, so either family of client works unchanged.
 */
export const CSRF_HEADERS = ['x-graphql-yoga-csrf', 'apollo-require-preflight', 'x-apollo-operation-name'] as const;

const requestAborted = () => requestContext.getStore()?.controller?.signal.aborted === true;
const isBadRequest = (e: unknown) => e instanceof GraphQLError && e.extensions['code'] === 'BAD_REQUEST';

/** Refuses execution without the user @envelop/generic-auth resolved from the session. */
const requireUser: Plugin<GraphQLContext & { currentUser?: SessionUser | null }> = {
  onExecute({ args, setResultAndStopExecution }) {
    if (!args.contextValue.currentUser) setResultAndStopExecution({ errors: [unauthenticatedGraphQLError()] });
  },
};

export function createGraphQLHandler(deps: { config: Config; db: Db; logger: Logger; schema: GraphQLSchema }) {
  const { config, db, logger, schema } = deps;
  const parseCaches = createParseCaches();
  return createYoga<ServerContext, GraphQLContext>({
    schema,
    graphqlEndpoint: GRAPHQL_PATH,
    // GraphiQL is served by graphiql.ts, before authentication, from precompressed shared buffers.
    graphiql: false,
    landingPage: false,
    // Internal errors are masked in every NODE_ENV: no stack, SQL or file path leaves.
    // A resolver that failed because the database is away gets a retryable 503.
    maskedErrors: { isDev: false, errorMessage: MASKED_ERROR_MESSAGE, maskError: maskDatabaseUnavailable },
    // CORS is answered by the dispatcher (src/http/cors.ts) for REST and GraphQL alike.
    cors: false,
    batching: false,
    // Declared lengths are refused by the dispatcher; chunked bodies are capped by
    // useUndeclaredBodyLimit below, without Yoga's per-request stream pipeline.
    maxRequestBodySize: false,
    parserAndValidationCache: parseCaches,
    logging: {
      debug: (...args) => logger.debug({ args }, 'yoga'),
      info: (...args) => logger.info({ args }, 'yoga'),
      warn: (...args) => logger.warn({ args }, 'yoga'),
      // Yoga logs every error it rewrites; a malformed request (code BAD_REQUEST,
      // a truncated body included) is the client's, answered 400 and in the access line.
      // Likewise the errors of a request that was aborted (client gone, deadline passed).
      error: (...args) =>
        args.every(isBadRequest) || requestAborted()
          ? logger.debug({ args: args.map(String) }, 'yoga')
          : logger.error({ args: args.map(String) }, 'yoga'),
    },
    context: ({ session, ip }): GraphQLContext => ({
      session,
      ip,
      config,
      db,
      loaders: { catalog: createCatalogLoaders(db) },
    }),
    plugins: [
      // Defence in depth: the dispatcher already refuses requests without a valid
      // token; should one reach execution, it still gets SPEC's 401 body. Every
      // operation is protected, but by one onExecute check rather than
      // generic-auth's protect-all, whose per-field validation rebuilds the
      // document on every request (measured in BENCHMARKS.md: it defeats
      // per-document caches and cost ~1.4 ms of CPU per Q1 request).
      useGenericAuth<SessionUser, GraphQLContext>({
        mode: 'resolve-only',
        resolveUserFn: (ctx) => ctx.session?.user ?? null,
      }),
      requireUser,
      // GET queries and form or text/plain posts run only with a preflight-forcing header.
      useCSRFPrevention({ requestHeaders: [...CSRF_HEADERS] }),
      useUndeclaredBodyLimit(config.graphqlMaxBodyBytes),
      useGraphQLLimits(config, (query) => parseCaches.documentCache.has(query)),
      useOperationSelection(),
      useExecutionLimits(config),
      useOperationName(),
      useCompiledExecution(logger),
      useExecutionDeadline(config.graphqlExecutionTimeoutMs, logger),
    ],
  });
}

export type GraphQLHandler = ReturnType<typeof createGraphQLHandler>;

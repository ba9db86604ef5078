import { useCSRFPrevention } from '@graphql-yoga/plugin-csrf-prevention';
import { GraphQLError, type GraphQLSchema } from 'graphql';
import { createYoga } from 'graphql-yoga';
import type { Config } from '../config.ts';
import { isDatabaseUnavailable } from '../platform/db-errors.ts';
import { HttpError, Outcome } from '../platform/errors.ts';
import type { Logger } from '../platform/logger.ts';
import { requestContext } from '../platform/request-context.ts';
import type { GraphQLContext, ServerContext } from './context.ts';
import { MASKED_ERROR_MESSAGE, maskError } from './errors.ts';
import { useAnswerMediaTypes, type AnswerMediaTypes } from './media-types.ts';
import { createParseCaches } from './parse-caches.ts';
import { useCompiledExecution } from './plugins/use-compiled-execution.ts';
import { useExecutionDeadline } from './plugins/use-execution-deadline.ts';
import { useExecutionLimits } from './plugins/use-execution-limits.ts';
import { useGraphQLLimits } from './plugins/use-graphql-limits.ts';
import { useOperationName } from './plugins/use-operation-name.ts';
import { useOperationSelection } from './plugins/use-operation-selection.ts';
import { useReplicaReads } from './plugins/use-replica-reads.ts';
import { useScopes } from './plugins/use-scopes.ts';
import { useTextInputs } from './plugins/use-text-inputs.ts';
import { useTrustedDocuments, type FindTrustedDocument } from './plugins/use-trusted-documents.ts';
import { useUndeclaredBodyLimit } from './plugins/use-undeclared-body-limit.ts';
import { createShareability, useResponseCache, type ResponseCache } from './response-cache/index.ts';

export const GRAPHQL_PATH = '/graphql';

/** Headers a browser cannot send without a CORS preflight: Yoga's own and Apollo Client's two. */
export const CSRF_HEADERS = ['x-graphql-yoga-csrf', 'apollo-require-preflight', 'x-apollo-operation-name'] as const;

const requestAborted = () => requestContext.getStore()?.controller?.signal.aborted === true;
const isBadRequest = (e: unknown) => e instanceof GraphQLError && e.extensions['code'] === 'BAD_REQUEST';

/** Domain outcomes and 4xx refusals, what a caller is told rather than a failure: worth a line, never an alert. */
const isClientOutcome = (e: unknown) => {
  const cause = e instanceof GraphQLError ? (e.originalError ?? e) : e;
  if (cause instanceof Outcome) return true;
  if (cause instanceof HttpError) return cause.status < 500;
  const status = (cause as GraphQLError).extensions?.['http'];
  return typeof status?.status === 'number' && status.status >= 400 && status.status < 500;
};

/**
 * Yoga logs every error it masks at "error". Only the service's own failures are errors; a refused
 * write or an unavailable database is info or warn. Never the query text (String(GraphQLError) prints
 * it, with whatever a caller typed in its literals): the message, the field path and the cause.
 */
export function logYogaErrors(logger: Logger, args: unknown[]): void {
  for (const e of args) {
    const cause = e instanceof GraphQLError ? e.originalError : undefined;
    const path = e instanceof GraphQLError ? e.path : undefined;
    if (isBadRequest(e) || requestAborted()) {
      logger.debug({ reason: (e as Error)?.message }, 'graphql request refused');
    } else if (isClientOutcome(e)) {
      const code = cause?.name ?? (e as GraphQLError).extensions?.['code'];
      logger.info({ outcome: code, path, reason: (e as Error).message }, 'graphql operation refused');
    } else if (isDatabaseUnavailable(e) || isDatabaseUnavailable(cause)) {
      logger.warn({ path, reason: (e as Error).message }, 'database unavailable');
    } else {
      const err = cause ?? e;
      logger.error({ path, err: err instanceof Error ? err : { message: String(err) } }, 'graphql operation failed');
    }
  }
}

export function createGraphQLHandler(deps: {
  config: Pick<Config, 'graphql' | 'federation'>;
  logger: Logger;
  schema: GraphQLSchema;
  /** Each module's per-request part of the context (its loaders), called once per request. */
  contextParts: readonly (() => object)[];
  /** Absent: no response cache. */
  responseCache?: ResponseCache | undefined;
  /** Queries may read from standbys (the database has replicas). */
  readReplicas?: boolean;
  /** The request's tenant's trusted documents by hash; absent with GRAPHQL_TRUSTED_DOCUMENTS=off. */
  trustedDocuments?: FindTrustedDocument | undefined;
  /** Learns, from Yoga's answers, what the answers sent without Yoga are sent as. */
  mediaTypes: AnswerMediaTypes;
}) {
  const { config, logger, schema, contextParts, responseCache, readReplicas, trustedDocuments, mediaTypes } = deps;
  const parseCaches = createParseCaches();
  return createYoga<ServerContext, GraphQLContext>({
    schema,
    graphqlEndpoint: GRAPHQL_PATH,
    // GraphiQL is served by graphiql.ts, before authentication, from precompressed shared buffers.
    graphiql: false,
    landingPage: false,
    maskedErrors: { isDev: false, errorMessage: MASKED_ERROR_MESSAGE, maskError },
    // CORS is answered by the dispatcher (src/http/cors.ts) for REST and GraphQL alike.
    cors: false,
    batching: false,
    // GraphQL over HTTP's persisted documents (use-trusted-documents.ts).
    extraParamNames: ['documentId'],
    // Declared lengths are refused by the dispatcher, chunked bodies by useUndeclaredBodyLimit.
    maxRequestBodySize: false,
    parserAndValidationCache: parseCaches,
    logging: {
      debug: (...args) => logger.debug({ args }, 'yoga'),
      info: (...args) => logger.info({ args }, 'yoga'),
      warn: (...args) => logger.warn({ args }, 'yoga'),
      error: (...args) => logYogaErrors(logger, args),
    },
    context: () => Object.assign({}, ...contextParts.map((part) => part())),
    plugins: [
      // GET queries and form or text/plain posts run only with a preflight-forcing header.
      useCSRFPrevention({ requestHeaders: [...CSRF_HEADERS] }),
      useUndeclaredBodyLimit(config.graphql.maxBodyBytes),
      // A trusted document's id becomes its text here, so every check below sees a full document.
      ...useTrustedDocuments(config, trustedDocuments),
      useGraphQLLimits(config.graphql, (query) => parseCaches.documentCache.has(query)),
      useOperationSelection(),
      useExecutionLimits(config),
      useScopes(),
      // Text that cannot round-trip through the database is refused before any resolver sees it.
      useTextInputs(),
      useOperationName(),
      useCompiledExecution(logger),
      ...(readReplicas ? [useReplicaReads()] : []),
      useAnswerMediaTypes(mediaTypes),
      useExecutionDeadline(config.graphql.executionTimeoutMs, logger),
      // Last. Requests reach Yoga authenticated; a hit is served from the params, before parsing, and only
      // for a request identical (document, variables, scopes) to one that passed the checks above and ran.
      // A trusted document is keyed by its text, as if sent in full: refusals of ids and documents come first.
      ...(responseCache ? [useResponseCache(responseCache, createShareability(schema))] : []),
    ],
  });
}

export type GraphQLHandler = ReturnType<typeof createGraphQLHandler>;

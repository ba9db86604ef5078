import type { ServerResponse } from 'node:http';
import { GraphQLError, type FieldNode } from 'graphql';
import { createGraphQLError, maskError as yogaMaskError, type YogaServerOptions } from 'graphql-yoga';
import { isDatabaseUnavailable, SERVICE_UNAVAILABLE_MESSAGE } from '../platform/db-errors.ts';
import {
  AnswerTooLarge,
  BadInput,
  BEARER_CHALLENGE,
  Conflict,
  Forbidden,
  NO_STORE,
  NotFound,
  Outcome,
  RETRY_LATER,
  TooManyRequests,
  Unauthenticated,
  UNAUTHENTICATED_MESSAGE,
  UNAUTHORIZED_MESSAGE,
  Unavailable,
  ValidationFailed,
  type HttpError,
} from '../platform/errors.ts';

// GraphQL over HTTP, one rule. A *request error* (the document does not parse or validate, a variable
// does not coerce, or one of our own limits refuses it: depth, aliases, tokens, cost, representations,
// operation selection) answers 400 to `application/graphql-response+json` and 200 to legacy
// `application/json` clients, whichever check found it: `http.spec: true` tells Yoga to drop the status
// for application/json. Refusals that are not request errors keep their status for every client
// (`http.spec: false`): a malformed HTTP request (400), 401, 403, 413, 429, 503, 504.

export const MASKED_ERROR_MESSAGE = 'Unexpected error.';

interface ErrorOptions {
  status?: number;
  /** A request error: its status is for application/graphql-response+json clients only. */
  requestError?: boolean;
  headers?: Record<string, string>;
  located?: GraphQLError;
}

export function graphQLError(message: string, code: string, options: ErrorOptions = {}): GraphQLError {
  const { status, headers, located, requestError = false } = options;
  return createGraphQLError(message, {
    ...(located ? { nodes: located.nodes, source: located.source, positions: located.positions } : {}),
    extensions: { code, ...(status ? { http: { status, spec: requestError, ...(headers ? { headers } : {}) } } : {}) },
  });
}

/** A limit or an invalid document refused before any resolver runs: a request error, GRAPHQL_VALIDATION_FAILED. */
export const validationError = (message: string, located?: GraphQLError) =>
  graphQLError(message, 'GRAPHQL_VALIDATION_FAILED', {
    status: 400,
    requestError: true,
    ...(located ? { located } : {}),
  });

/** A variable that does not coerce: a request error. */
export const variableError = (e: GraphQLError) =>
  createGraphQLError(e.message, {
    nodes: e.nodes,
    extensions: { code: 'BAD_USER_INPUT', http: { status: 400, spec: true } },
  });

export const forbiddenError = (message: string) => graphQLError(message, 'FORBIDDEN', { status: 403 });

/** Lighthouse's wording for a missing permission; which abilities would have allowed it goes beside it. */
export const forbiddenFieldError = (node: FieldNode, requiredScopes: readonly (readonly string[])[]) =>
  createGraphQLError(UNAUTHORIZED_MESSAGE, {
    nodes: [node],
    extensions: { code: 'FORBIDDEN', requiredScopes, http: { status: 403, spec: false } },
  });

export const tooManyInFlightError = (per: 'token' | 'user') =>
  graphQLError(`Too many requests in flight for this ${per}.`, 'TOO_MANY_REQUESTS', {
    status: 429,
    headers: { 'Retry-After': '1' },
  });

export const deadlineError = (timeoutMs: number) =>
  graphQLError(`The operation took longer than ${timeoutMs} ms and was aborted.`, 'EXECUTION_TIMEOUT', { status: 504 });

export const serviceUnavailableError = () =>
  graphQLError(SERVICE_UNAVAILABLE_MESSAGE, 'SERVICE_UNAVAILABLE', { status: 503, headers: { ...RETRY_LATER } });

export const bodyTooLargeError = () =>
  graphQLError('Request body too large.', 'REQUEST_ENTITY_TOO_LARGE', { status: 413 });

export function shorten(name: string): string {
  return name.length > 100 ? `${name.slice(0, 100)}…` : name;
}

/**
 * Development mode off whatever NODE_ENV says; a database outage is a retryable 503. Yoga's BAD_REQUEST errors
 * lose `originalError` (it echoes the body) and are a 400 for every client.
 */
type MaskError = NonNullable<
  Exclude<YogaServerOptions<object, object>['maskedErrors'], boolean | undefined>['maskError']
>;

type Extensions = Record<string, unknown>;
const refusedWith = (status: number, headers?: Record<string, string>) => ({
  http: { status, spec: false, ...(headers ? { headers } : {}) },
});

/**
 * A domain outcome (platform/errors.ts) as Lighthouse words it, at the field that threw it. Those without a
 * status answer 200 with the data beside them; the others are refusals with their HTTP status.
 */
function outcomeExtensions(outcome: Outcome, path: GraphQLError['path']): [string, Extensions] | undefined {
  if (outcome instanceof ValidationFailed) {
    const field = [...(path ?? [])].reverse().find((p) => typeof p === 'string') ?? 'operation';
    return [`Validation failed for the field [${field}].`, { code: 'BAD_USER_INPUT', validation: outcome.errors }];
  }
  if (outcome instanceof BadInput) return [outcome.message, { code: 'BAD_USER_INPUT', ...outcome.details }];
  if (outcome instanceof NotFound) return [outcome.message, { code: 'NOT_FOUND' }];
  if (outcome instanceof Conflict) {
    return [
      outcome.message,
      { code: 'CONFLICT', ...(outcome.currentUpdatedAt ? { updatedAt: outcome.currentUpdatedAt.toISOString() } : {}) },
    ];
  }
  if (outcome instanceof Forbidden) return [outcome.message, { code: 'FORBIDDEN', ...refusedWith(403) }];
  if (outcome instanceof Unauthenticated)
    return [outcome.message, { code: 'UNAUTHENTICATED', ...refusedWith(401, { ...BEARER_CHALLENGE }) }];
  if (outcome instanceof TooManyRequests) {
    return [
      outcome.message,
      { code: 'TOO_MANY_REQUESTS', ...refusedWith(429, { 'Retry-After': String(outcome.retryAfterSeconds) }) },
    ];
  }
  if (outcome instanceof Unavailable) {
    const headers = { 'Retry-After': String(outcome.retryAfterSeconds), ...NO_STORE };
    return [outcome.message, { code: 'SERVICE_UNAVAILABLE', ...refusedWith(503, headers) }];
  }
  // Normally replaced by useExecutionLimits with the whole answer's refusal first.
  if (outcome instanceof AnswerTooLarge)
    return [outcome.message, { code: 'GRAPHQL_VALIDATION_FAILED', http: { status: 400, spec: true } }];
  return undefined;
}

function outcomeError(error: unknown): GraphQLError | undefined {
  const located = error instanceof GraphQLError ? error : undefined;
  const outcome = located ? located.originalError : error;
  if (!(outcome instanceof Outcome)) return undefined;
  const worded = outcomeExtensions(outcome, located?.path);
  if (!worded) return undefined;
  const [message, extensions] = worded;
  const at = located
    ? { nodes: located.nodes, source: located.source, positions: located.positions, path: located.path }
    : {};
  return createGraphQLError(message, { ...at, extensions });
}

export const maskError: MaskError = (error, message) => {
  if (isDatabaseUnavailable(error)) return serviceUnavailableError();
  const outcome = outcomeError(error);
  if (outcome) return outcome;
  const masked = yogaMaskError(error, message, false);
  if (!(masked instanceof GraphQLError)) return masked;
  const { originalError, http, ...rest } = masked.extensions as Record<string, unknown> & {
    http?: { status?: number; spec?: boolean; headers?: Record<string, string> };
  };
  const badRequest = rest['code'] === 'BAD_REQUEST' && http?.spec === true;
  if (originalError === undefined && !badRequest) return masked;
  return createGraphQLError(masked.message, {
    nodes: masked.nodes,
    source: masked.source,
    positions: masked.positions,
    path: masked.path,
    extensions: { ...rest, ...(http ? { http: badRequest ? { ...http, spec: false } : http } : {}) },
  });
};

const REFUSALS: Record<number, (error: HttpError) => GraphQLError> = {
  401: () =>
    graphQLError(UNAUTHENTICATED_MESSAGE, 'UNAUTHENTICATED', { status: 401, headers: { ...BEARER_CHALLENGE } }),
  413: (error) =>
    graphQLError('Request body too large.', 'REQUEST_ENTITY_TOO_LARGE', {
      status: 413,
      headers: error.options.headers ?? {},
    }),
  429: (error) =>
    graphQLError(error.message, 'TOO_MANY_REQUESTS', { status: 429, headers: error.options.headers ?? {} }),
  503: (error) =>
    graphQLError(error.message, 'SERVICE_UNAVAILABLE', { status: 503, headers: error.options.headers ?? {} }),
};

/** The GraphQL form of a refusal the HTTP layer made before GraphQL ran. */
export function fromHttpError(error: HttpError): GraphQLError {
  const refusal = REFUSALS[error.status];
  if (refusal) return refusal(error);
  if (error.status >= 500) return graphQLError(MASKED_ERROR_MESSAGE, 'INTERNAL_SERVER_ERROR', { status: 500 });
  const code = error.status === 404 ? 'NOT_FOUND' : error.status === 405 ? 'METHOD_NOT_ALLOWED' : 'BAD_REQUEST';
  return graphQLError(error.message, code, { status: error.status, headers: error.options.headers ?? {} });
}

export function sendGraphQLError(res: ServerResponse, error: GraphQLError): void {
  const { http, ...extensions } = error.extensions as { http?: { status?: number; headers?: Record<string, string> } };
  const body = JSON.stringify({ errors: [{ message: error.message, extensions }] });
  res.writeHead(http?.status ?? 500, {
    ...http?.headers,
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(body),
  });
  res.end(body);
}

import { createGraphQLError } from 'graphql-yoga';
import { DATABASE_RETRY_AFTER_SECONDS, SERVICE_UNAVAILABLE_MESSAGE } from './db-errors.ts';

/**
 * The one error vocabulary of the service. Expected outcomes are thrown as one
 * of these (or returned as typed results by services); anything else is masked
 * at the edge as an internal error, so no stack, SQL or SQLSTATE leaves the process.
 */

export type FieldErrors = Record<string, string[]>;

/** A REST failure with the SPEC body `{ success: false, message, errors? }`. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly options: { errors?: FieldErrors; headers?: Record<string, string> } = {},
  ) {
    super(message);
    this.name = 'HttpError';
  }

  body(): { success: false; message: string; errors?: FieldErrors } {
    return this.options.errors
      ? { success: false, message: this.message, errors: this.options.errors }
      : { success: false, message: this.message };
  }
}

export const UNAUTHENTICATED_MESSAGE = 'Unauthenticated.';
export const BEARER_CHALLENGE = { 'WWW-Authenticate': 'Bearer' } as const;

export function unauthenticatedHttpError(): HttpError {
  // no-store: the answers of token routes must never be cached, refusals included.
  return new HttpError(401, UNAUTHENTICATED_MESSAGE, { headers: { ...BEARER_CHALLENGE, 'Cache-Control': 'no-store' } });
}

export function unauthenticatedGraphQLError() {
  return createGraphQLError(UNAUTHENTICATED_MESSAGE, {
    extensions: { code: 'UNAUTHENTICATED', http: { status: 401, headers: { ...BEARER_CHALLENGE } } },
  });
}

export function badUserInputError(message: string) {
  return createGraphQLError(message, { extensions: { code: 'BAD_USER_INPUT' } });
}

/** The database is away: a retryable 503 for REST (SPEC envelope) and GraphQL alike. */
export function serviceUnavailableHttpError(): HttpError {
  return new HttpError(503, SERVICE_UNAVAILABLE_MESSAGE, {
    headers: { 'Retry-After': String(DATABASE_RETRY_AFTER_SECONDS) },
  });
}

export function serviceUnavailableGraphQLError() {
  return createGraphQLError(SERVICE_UNAVAILABLE_MESSAGE, {
    extensions: {
      code: 'SERVICE_UNAVAILABLE',
      http: { status: 503, headers: { 'Retry-After': String(DATABASE_RETRY_AFTER_SECONDS) } },
    },
  });
}

import { SERVICE_UNAVAILABLE_MESSAGE } from './db-errors.ts';

// Expected REST outcomes are HttpErrors (or typed results); anything else is masked at the edge.

export type FieldErrors = Record<string, string[]>;

/** A REST failure with the body `{ success: false, message, errors? }`. */
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
export const NO_STORE = { 'Cache-Control': 'no-store' } as const;

/** Headers of every "come back later" answer: the database away, the service starting or draining. */
export const RETRY_LATER = { 'Retry-After': '5', ...NO_STORE } as const;

export function unauthenticatedHttpError(): HttpError {
  // no-store: the answers of token routes must never be cached, refusals included.
  return new HttpError(401, UNAUTHENTICATED_MESSAGE, { headers: { ...BEARER_CHALLENGE, ...NO_STORE } });
}

export function serviceUnavailableHttpError(message = SERVICE_UNAVAILABLE_MESSAGE): HttpError {
  return new HttpError(503, message, { headers: { ...RETRY_LATER } });
}

// Expected outcomes of writes, independent of the interface: GraphQL (graphql/errors.ts) and the CLI word them.

/** Input the caller must correct, messages by argument path (`input.steps.0.name`). */
export class ValidationFailed extends Error {
  constructor(readonly errors: FieldErrors) {
    super('Validation failed.');
    this.name = 'ValidationFailed';
  }
}

export class NotFound extends Error {
  override name = 'NotFound';
}

/** Optimistic concurrency: the record changed after the version the caller based its write on. */
export class Conflict extends Error {
  override name = 'Conflict';
  constructor(message: string, readonly currentUpdatedAt?: Date) {
    super(message);
  }
}

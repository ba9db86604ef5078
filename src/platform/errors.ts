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

// Domain outcomes: what services throw when a request cannot be done as asked. They name the outcome, not an
// interface; only the two edges word them: graphql/errors.ts (extensions.code) and http/respond.ts (REST
// envelopes). Anything that is not an Outcome or an HttpError is masked.

/** An expected outcome the caller is told about; never a failure of the service itself. */
export abstract class Outcome extends Error {}

/** Input the caller must correct, messages by argument path (`input.steps.0.name`). */
export class ValidationFailed extends Outcome {
  override name = 'ValidationFailed';
  constructor(readonly errors: FieldErrors) {
    super('Validation failed.');
  }
}

/** An argument refused as a whole (a page size, a cursor, a selection that breaks the rules); `details` go beside the message. */
export class BadInput extends Outcome {
  override name = 'BadInput';
  constructor(
    message: string,
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

export class NotFound extends Outcome {
  override name = 'NotFound';
}

/** Optimistic concurrency: the record changed after the version the caller based its write on. */
export class Conflict extends Outcome {
  override name = 'Conflict';
  constructor(
    message: string,
    readonly currentUpdatedAt?: Date,
  ) {
    super(message);
  }
}

export const UNAUTHORIZED_MESSAGE = 'This action is unauthorized.';

/** The caller is known but may not do this (a missing ability, or asking for more than it holds). */
export class Forbidden extends Outcome {
  override name = 'Forbidden';
  constructor(message = UNAUTHORIZED_MESSAGE) {
    super(message);
  }
}

/** The credentials the request came with are no longer good (revoked while it ran). */
export class Unauthenticated extends Outcome {
  override name = 'Unauthenticated';
  constructor() {
    super(UNAUTHENTICATED_MESSAGE);
  }
}

/** A rate the caller went over; it may retry after `retryAfterSeconds`. */
export class TooManyRequests extends Outcome {
  override name = 'TooManyRequests';
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super(message);
  }
}

/** The service cannot do it now (at capacity, starting, draining); retry after `retryAfterSeconds`. */
export class Unavailable extends Outcome {
  override name = 'Unavailable';
  constructor(
    message = SERVICE_UNAVAILABLE_MESSAGE,
    readonly retryAfterSeconds = 5,
  ) {
    super(message);
  }
}

/**
 * An answer that would hold more than GRAPHQL_MAX_ANSWER_FIELDS fields or GRAPHQL_MAX_ANSWER_BYTES bytes, found
 * while it runs (list sizes are the data's): thrown before what is over is built, and refused whole, as the
 * cost limit refuses, with no data.
 */
export class AnswerTooLarge extends Outcome {
  override name = 'AnswerTooLarge';
  constructor(
    readonly max: number,
    readonly found: number,
    readonly unit: 'fields' | 'bytes',
  ) {
    super(
      `Answer size limit of ${max} ${unit} exceeded, found at least ${found}. ` +
        (unit === 'fields'
          ? 'Ask for fewer products, fewer fields or smaller pages.'
          : 'Ask for fewer fields, fewer aliases or fewer items at once.'),
    );
  }
}

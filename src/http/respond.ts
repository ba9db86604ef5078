import type { ServerResponse } from 'node:http';
import {
  AnswerTooLarge,
  BadInput,
  Conflict,
  Forbidden,
  HttpError,
  NotFound,
  NO_STORE,
  Outcome,
  TooManyRequests,
  Unauthenticated,
  unauthenticatedHttpError,
  Unavailable,
  ValidationFailed,
  type FieldErrors,
} from '../platform/errors.ts';

export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const payload = JSON.stringify(body);
  res.writeHead(status, {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(payload),
    ...headers,
  });
  res.end(payload);
}

export function sendHttpError(res: ServerResponse, error: HttpError, headers: Record<string, string> = {}): void {
  sendJson(res, error.status, error.body(), { ...headers, ...error.options.headers });
}

/** Laravel's 422 message: the first message, and how many more. */
export function firstErrorMessage(errors: FieldErrors): string {
  const messages = Object.values(errors).flat();
  const more = messages.length - 1;
  return more > 0
    ? `${messages[0]} (and ${more} more error${more > 1 ? 's' : ''})`
    : (messages[0] ?? 'Validation failed.');
}

/** A domain outcome (platform/errors.ts) as a REST answer `{ success: false, message, errors? }`. */
function outcomeHttpError(outcome: Outcome): HttpError | undefined {
  if (outcome instanceof ValidationFailed)
    return new HttpError(422, firstErrorMessage(outcome.errors), { errors: outcome.errors });
  if (outcome instanceof BadInput || outcome instanceof AnswerTooLarge) return new HttpError(400, outcome.message);
  if (outcome instanceof NotFound) return new HttpError(404, outcome.message);
  if (outcome instanceof Conflict) return new HttpError(409, outcome.message);
  if (outcome instanceof Forbidden) return new HttpError(403, outcome.message);
  if (outcome instanceof Unauthenticated) return unauthenticatedHttpError();
  if (outcome instanceof TooManyRequests)
    return new HttpError(429, outcome.message, { headers: { 'Retry-After': String(outcome.retryAfterSeconds) } });
  if (outcome instanceof Unavailable) {
    return new HttpError(503, outcome.message, {
      headers: { 'Retry-After': String(outcome.retryAfterSeconds), ...NO_STORE },
    });
  }
  return undefined;
}

/** What a thrown value answers over REST, if it is a refusal or a domain outcome; anything else is masked. */
export function httpErrorOf(err: unknown): HttpError | undefined {
  if (err instanceof HttpError) return err;
  return err instanceof Outcome ? outcomeHttpError(err) : undefined;
}

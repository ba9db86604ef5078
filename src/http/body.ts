import type { IncomingMessage } from 'node:http';
import { HttpError, ValidationFailed, type FieldErrors } from '../platform/errors.ts';
import { attributeOf, findForbiddenText, forbiddenTextMessage } from '../platform/text.ts';

// fatal: a malformed byte sequence is refused, not silently replaced by U+FFFD (what is stored must be what was sent).
const utf8 = new TextDecoder('utf-8', { fatal: true });

/** A declared length over `limit` is refused unread; an undeclared one is cut off as it passes, never buffered whole. */
export async function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length'] ?? NaN);
  if (declared > limit) throw payloadTooLarge(limit);
  const chunks: Buffer[] = [];
  let size = 0;
  // destroyOnReturn false: a refusal leaves the socket open, so the rest can be discarded (discard-body.ts).
  for await (const chunk of req.iterator({ destroyOnReturn: false }) as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) throw payloadTooLarge(limit);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

function payloadTooLarge(limit: number): HttpError {
  // The rest of the body is only discarded, so the connection cannot be reused.
  return new HttpError(413, `The request body is larger than ${limit} bytes.`, { headers: { Connection: 'close' } });
}

/** JSON only: forms and text/plain are what a hostile page can make a browser send cross-site without a preflight. */
export async function readObjectBody(req: IncomingMessage, limit: number): Promise<Record<string, unknown>> {
  const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  if (type !== 'application/json') {
    throw new HttpError(415, 'The request body must be JSON (Content-Type: application/json).', {
      headers: { Connection: 'close' },
    });
  }
  const raw = await readBody(req, limit);
  if (raw.length === 0) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(utf8.decode(raw));
  } catch {
    throw new HttpError(400, 'The request body is not valid JSON.');
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new HttpError(400, 'The request body must be a JSON object.');
  }
  refuseForbiddenText(parsed);
  return parsed as Record<string, unknown>;
}

/** NUL, lone surrogates and non-characters anywhere in a body: Laravel's 422, by top-level field, before any route looks. */
function refuseForbiddenText(body: object): void {
  const found = findForbiddenText(body);
  if (found.length === 0) return;
  const errors: FieldErrors = {};
  for (const path of found) {
    const message = forbiddenTextMessage(attributeOf(path, path[0]));
    const messages = (errors[path[0] ?? 'body'] ??= []);
    if (!messages.includes(message)) messages.push(message);
  }
  throw new ValidationFailed(errors);
}

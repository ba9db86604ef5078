import type { IncomingMessage } from 'node:http';
import { HttpError } from '../platform/errors.ts';

/** A declared length over `limit` is refused unread; an undeclared one is cut off as it passes, never buffered whole. */
export async function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length'] ?? NaN);
  if (declared > limit) throw payloadTooLarge(limit);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) throw payloadTooLarge(limit);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

function payloadTooLarge(limit: number): HttpError {
  // The rest of the body is never read, so the connection cannot be reused.
  return new HttpError(413, `The request body is larger than ${limit} bytes.`, { headers: { Connection: 'close' } });
}

/** JSON only: forms and text/plain are what a hostile page can make a browser send cross-site without a preflight. */
export async function readObjectBody(req: IncomingMessage, limit: number): Promise<Record<string, unknown>> {
  const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  if (type !== 'application/json') {
    throw new HttpError(415, 'The request body must be JSON (Content-Type: application/json).', { headers: { Connection: 'close' } });
  }
  const raw = await readBody(req, limit);
  if (raw.length === 0) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw.toString('utf8'));
  } catch {
    throw new HttpError(400, 'The request body is not valid JSON.');
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new HttpError(400, 'The request body must be a JSON object.');
  }
  return parsed as Record<string, unknown>;
}

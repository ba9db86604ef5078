import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import type { Session } from '../../platform/session.ts';
import type { ResponseCache } from './cache.ts';
import { cacheSessionOf, etagMatches, responseCacheKey } from './key.ts';

// A stored answer sent without entering Yoga. Its key is the request itself (document, operation
// name, variables) and the caller's scopes, so only a request identical to one that passed parsing,
// validation, every limit and the scope checks, by a caller allowed exactly the same, is answered;
// authentication and the in-flight limits ran before. Anything else (a miss, a GET, another body
// shape) goes to Yoga as before.

const PARAMS = new Set(['query', 'variables', 'operationName']);
const REGULAR = new Set(['application/json', 'application/graphql-response+json']);

/**
 * Sends stored answers before Yoga. The media type of each Accept header is the one Yoga chose when it
 * last answered that header with a regular JSON result (learnFrom): nothing here negotiates, and an
 * Accept Yoga has not answered yet goes to Yoga. Clients send a handful of Accept headers, each on
 * every request.
 */
export function createStoredAnswers(cache: ResponseCache) {
  const mediaTypes = new Map<string, string>();
  const acceptOf = (headers: IncomingHttpHeaders) => headers.accept ?? '';
  return {
    /** Whether the request may be answered here at all: its body is then read (and handed on to Yoga on a miss). */
    mayAnswer(req: IncomingMessage): boolean {
      const { headers } = req;
      return (
        cache.available &&
        req.method === 'POST' &&
        headers['content-length'] !== undefined &&
        (headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase() === 'application/json' &&
        mediaTypes.has(acceptOf(headers))
      );
    },
    /** Sends the stored answer to this request, if there is one; false: nothing sent. */
    answer(session: Session, body: Buffer, req: IncomingMessage, res: ServerResponse): boolean {
      const params = paramsOf(body);
      if (!params) return false;
      const key = responseCacheKey(
        cacheSessionOf(session.scopes),
        params.operationName,
        params.query,
        params.variables,
      );
      const stored = cache.lookup(key);
      if (!stored) return false;
      // Conditional on the caller's own answer only: the validator of the answer this request gets.
      if (etagMatches(req.headers['if-none-match'], stored.headers['ETag']!)) {
        res.writeHead(304, stored.headers);
        res.end();
        return true;
      }
      res.writeHead(200, {
        'content-type': `${mediaTypes.get(acceptOf(req.headers))!}; charset=utf-8`,
        'content-length': Buffer.byteLength(stored.json),
        ...stored.headers,
      });
      res.end(stored.json);
      return true;
    },
    /** Notes the media type Yoga answered a request's Accept with, for a regular JSON result. */
    learnFrom(request: Request, response: Response) {
      if (request.method !== 'POST' || response.status !== 200 || mediaTypes.size >= 100) return;
      const type = (response.headers.get('content-type') ?? '').split(';')[0]!.trim();
      if (REGULAR.has(type)) mediaTypes.set(request.headers.get('accept') ?? '', type);
    },
  };
}

export type StoredAnswers = ReturnType<typeof createStoredAnswers>;

function paramsOf(body: Buffer) {
  if (body.length === 0) return undefined;
  let params: unknown;
  try {
    params = JSON.parse(body.toString('utf8'));
  } catch {
    return undefined;
  }
  if (typeof params !== 'object' || params === null || Array.isArray(params)) return undefined;
  const { query, variables, operationName } = params as Record<string, unknown>;
  if (Object.keys(params).some((k) => !PARAMS.has(k)) || typeof query !== 'string') return undefined;
  if (variables !== undefined && variables !== null && (typeof variables !== 'object' || Array.isArray(variables)))
    return undefined;
  if (operationName !== undefined && operationName !== null && typeof operationName !== 'string') return undefined;
  return { query, variables, operationName };
}

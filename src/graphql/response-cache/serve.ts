import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AnswerMediaTypes } from '../media-types.ts';
import { postParams } from '../post-params.ts';
import type { Session } from '../../platform/session.ts';
import type { ResponseCache } from './cache.ts';
import { cacheSessionOf, etagMatches, responseCacheKey } from './key.ts';
import type { Entry } from './store.ts';

// A stored answer sent without entering Yoga. Its key is the request itself (document, operation
// name, variables) and the caller's scopes, so only a request identical to one that passed parsing,
// validation, every limit and the scope checks, by a caller allowed exactly the same, is answered;
// authentication and the in-flight limits ran before. Anything else (a miss, a GET, another body
// shape) goes to Yoga as before.

const PARAMS = new Set(['query', 'variables', 'operationName']);

/** Sends a stored answer as `mediaType`, or 304 when the caller already holds these bytes. */
export function sendStoredAnswer(stored: Entry, mediaType: string, req: IncomingMessage, res: ServerResponse): void {
  // Conditional on the caller's own answer only: the validator of the answer this request gets.
  if (etagMatches(req.headers['if-none-match'], stored.headers['ETag']!)) {
    res.writeHead(304, stored.headers);
    res.end();
    return;
  }
  res.writeHead(200, {
    'content-type': `${mediaType}; charset=utf-8`,
    'content-length': Buffer.byteLength(stored.json),
    ...stored.headers,
  });
  res.end(stored.json);
}

/** Sends stored answers before Yoga, as the media type Yoga chose for the request's Accept (media-types.ts). */
export function createStoredAnswers(cache: ResponseCache, mediaTypes: AnswerMediaTypes) {
  return {
    /** Whether the request may be answered here at all: its body is then read (and handed on to Yoga on a miss). */
    mayAnswer(req: IncomingMessage): boolean {
      return cache.available && mediaTypes.forJsonPost(req) !== undefined;
    },
    /** Sends the stored answer to this request, if there is one; false: nothing sent. */
    answer(session: Session, body: Buffer, req: IncomingMessage, res: ServerResponse): boolean {
      const mediaType = mediaTypes.forJsonPost(req);
      const params = mediaType && paramsOf(body);
      if (!params) return false;
      const key = responseCacheKey(
        cacheSessionOf(session.scopes),
        params.operationName,
        params.query,
        params.variables,
      );
      const stored = cache.lookup(key);
      if (!stored) return false;
      sendStoredAnswer(stored, mediaType, req, res);
      return true;
    },
  };
}

export type StoredAnswers = ReturnType<typeof createStoredAnswers>;

function paramsOf(body: Buffer) {
  const params = postParams(body, PARAMS);
  if (typeof params?.['query'] !== 'string') return undefined;
  return {
    query: params['query'],
    variables: params['variables'],
    operationName: params['operationName'] as string | null | undefined,
  };
}

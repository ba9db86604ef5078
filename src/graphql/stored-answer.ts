import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import type { Session } from '../platform/session.ts';
import { cacheSessionOf, responseCacheKey, type ResponseStore } from './response-cache.ts';

// A stored answer sent without entering Yoga. Its key is the request itself (document, operation
// name, variables) and the caller's scopes, so only a request identical to one that passed parsing,
// validation, every limit and the scope checks, by a caller allowed exactly the same, is answered;
// authentication and the in-flight limits ran before. Anything else (a miss, a GET, another body
// shape, a conditional request, an Accept only Yoga can serve) goes to Yoga as before.

const PARAMS = new Set(['query', 'variables', 'operationName']);

// Clients send a handful of Accept headers, each on every request: each is worked out once.
const mediaTypes = new Map<string | undefined, string | undefined>();
function regularMediaType(accept: string | undefined): string | undefined {
  if (mediaTypes.has(accept)) return mediaTypes.get(accept);
  const chosen = chooseMediaType(accept);
  if (mediaTypes.size < 100) mediaTypes.set(accept, chosen);
  return chosen;
}

/** The media type Yoga's result processors choose for a single result: the last match wins (graphql-yoga's use-result-processor). */
function chooseMediaType(accept: string | undefined): string | undefined {
  const asked = (accept || '*/*')
    .replace(/\s/g, '')
    .toLowerCase()
    .split(',')
    .flatMap((part) => {
      const [type, ...params] = part.split(';');
      const charset = params.find((p) => p.includes('charset=')) ?? 'charset=utf-8';
      return type !== undefined && charset === 'charset=utf-8' ? [type] : [];
    })
    .reverse();
  const matches = (offered: string, wanted: string) => {
    const [pre, suf] = wanted.split('/');
    const [offeredPre, offeredSuf] = offered.split('/');
    return (pre === '*' || pre === offeredPre) && (suf === '*' || suf === offeredSuf);
  };
  let chosen: string | undefined;
  for (const offered of [
    ['text/event-stream'],
    ['multipart/mixed'],
    ['application/graphql-response+json', 'application/json'],
  ])
    for (const wanted of asked) for (const type of offered) if (matches(type, wanted)) chosen = type;
  return chosen === 'application/graphql-response+json' || chosen === 'application/json' ? chosen : undefined;
}

/** Whether the request may be answered here at all: its body is then read (and handed on to Yoga on a miss). */
export function mayAnswerFromStore(method: string | undefined, headers: IncomingHttpHeaders): boolean {
  return (
    method === 'POST' &&
    headers['content-length'] !== undefined &&
    headers['if-none-match'] === undefined &&
    (headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase() === 'application/json' &&
    regularMediaType(headers.accept) !== undefined
  );
}

/** Sends the stored answer to this request, if there is one; false: nothing sent. */
export function answerFromStore(
  store: ResponseStore,
  session: Session,
  body: Buffer,
  headers: IncomingHttpHeaders,
  res: ServerResponse,
): boolean {
  if (!store.available || body.length === 0) return false;
  let params: unknown;
  try {
    params = JSON.parse(body.toString('utf8'));
  } catch {
    return false;
  }
  if (typeof params !== 'object' || params === null || Array.isArray(params)) return false;
  const { query, variables, operationName } = params as Record<string, unknown>;
  if (Object.keys(params).some((k) => !PARAMS.has(k)) || typeof query !== 'string') return false;
  if (variables !== undefined && variables !== null && (typeof variables !== 'object' || Array.isArray(variables)))
    return false;
  if (operationName !== undefined && operationName !== null && typeof operationName !== 'string') return false;
  const stored = store.lookup(responseCacheKey(cacheSessionOf(session.scopes), operationName, query, variables));
  if (!stored) return false;
  res.writeHead(200, {
    'content-type': `${regularMediaType(headers.accept)!}; charset=utf-8`,
    'content-length': Buffer.byteLength(stored.json),
    ...stored.headers,
  });
  res.end(stored.json);
  return true;
}

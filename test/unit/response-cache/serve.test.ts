import type { IncomingMessage, ServerResponse } from 'node:http';
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { createResponseCache } from '../../../src/graphql/response-cache/cache.ts';
import { cacheSessionOf, etagOf, responseCacheKey } from '../../../src/graphql/response-cache/key.ts';
import { createAnswerMediaTypes } from '../../../src/graphql/media-types.ts';
import { createStoredAnswers } from '../../../src/graphql/response-cache/serve.ts';
import type { Session } from '../../../src/platform/session.ts';

const ACCEPT = 'application/graphql-response+json, application/json';
const BODY = { query: '{ shared }' };
const JSON_TEXT = '{"data":{"shared":"same for all"}}';

const session = (scopes: string[]) => ({ tokenId: '1', scopes }) as unknown as Session;
const request = (headers: Record<string, string> = {}) =>
  ({
    method: 'POST',
    headers: { 'content-type': 'application/json', 'content-length': '20', accept: ACCEPT, ...headers },
  }) as unknown as IncomingMessage;

/** What was sent: status, headers and body. */
function response() {
  const sent: { status?: number; headers?: Record<string, unknown>; body?: string } = {};
  const res = {
    writeHead: (status: number, headers: Record<string, unknown>) => Object.assign(sent, { status, headers }),
    end: (body?: string) => void (sent.body = body),
  } as unknown as ServerResponse;
  return { res, sent };
}

/** A cache holding the answer to BODY for callers with `catalog:read`, and Yoga's media type for ACCEPT learnt. */
function setUp() {
  const cache = createResponseCache({
    maxEntries: 10,
    maxBytes: 1 << 20,
    maxAnswerBytes: 1 << 16,
    maxTokenShare: 0.25,
    ttlMs: 60_000,
    registry: new Registry(),
  });
  cache.setAvailable(true);
  const key = responseCacheKey(cacheSessionOf(['catalog:read']), undefined, BODY.query, undefined);
  const headers = { ETag: etagOf(JSON_TEXT), 'Last-Modified': new Date(0).toUTCString() };
  const mediaTypes = createAnswerMediaTypes();
  const stored = Object.assign(createStoredAnswers(cache, mediaTypes), { learnFrom: mediaTypes.learnFrom });
  cache.missed(key);
  cache.offer(
    key,
    {},
    { json: JSON_TEXT, headers, bytes: JSON_TEXT.length, operationName: null, tags: [], owner: '1' },
  );
  return { stored, etag: headers.ETag };
}

const answer = (stored: ReturnType<typeof setUp>['stored'], scopes: string[], headers = {}) => {
  const { res, sent } = response();
  const req = request(headers);
  const answered = stored.mayAnswer(req) && stored.answer(session(scopes), Buffer.from(JSON.stringify(BODY)), req, res);
  return { answered, ...sent };
};

describe('stored answers sent before Yoga', () => {
  it('waits until Yoga has answered that Accept, then sends its media type', () => {
    const { stored } = setUp();
    expect(answer(stored, ['catalog:read']).answered).toBe(false);
    stored.learnFrom(
      new Request('http://x/graphql', { method: 'POST', headers: { accept: ACCEPT } }),
      new Response('{}', { headers: { 'content-type': 'application/graphql-response+json; charset=utf-8' } }),
    );
    const sent = answer(stored, ['catalog:read']);
    expect(sent).toMatchObject({ answered: true, status: 200, body: JSON_TEXT });
    expect(sent.headers?.['content-type']).toBe('application/graphql-response+json; charset=utf-8');
  });

  it('answers If-None-Match with 304 only for the caller’s own stored answer', () => {
    const { stored, etag } = setUp();
    stored.learnFrom(
      new Request('http://x/graphql', { method: 'POST', headers: { accept: ACCEPT } }),
      new Response('{}', { headers: { 'content-type': 'application/graphql-response+json' } }),
    );
    expect(answer(stored, ['catalog:read'], { 'if-none-match': etag })).toMatchObject({ answered: true, status: 304 });
    expect(answer(stored, ['catalog:read'], { 'if-none-match': `W/${etag}` }).status).toBe(304);
    expect(answer(stored, ['catalog:read'], { 'if-none-match': '"other"' }).status).toBe(200);
    // Other scopes: another key, nothing stored under it, so Yoga answers (and refuses) it.
    expect(answer(stored, [], { 'if-none-match': etag }).answered).toBe(false);
  });
});

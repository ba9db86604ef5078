import type { OutgoingHttpHeaders } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.ts';
import { rawExchange, request } from '../support/raw-http.ts';

let t: TestApp;
let valid: string;

const REST_BODY = '{"success":false,"message":"Unauthenticated."}';
const GRAPHQL_BODY = '{"errors":[{"message":"Unauthenticated.","extensions":{"code":"UNAUTHENTICATED"}}]}';
const QUERY = JSON.stringify({ query: '{ products(first: 1) { data { id } } }' });

beforeAll(async () => {
  t = await startTestApp();
  const user = await t.createUser();
  valid = await t.login(user.email, user.password);
});
afterAll(() => t?.close());

/** Each case is the Authorization header(s) sent; a function so that it can use the valid token. */
const cases: [string, () => OutgoingHttpHeaders][] = [
  ['no header', () => ({})],
  ['Bearer', () => ({ authorization: 'Bearer' })],
  ['Bearer and a space', () => ({ authorization: 'Bearer ' })],
  ['Basic credentials', () => ({ authorization: `Basic ${Buffer.from('user:pass').toString('base64')}` })],
  ['an id and no secret', () => ({ authorization: 'Bearer 1|' })],
  ['a secret and no id', () => ({ authorization: 'Bearer |abc' })],
  ['a non-numeric id', () => ({ authorization: 'Bearer abc|def' })],
  ['an id beyond bigint', () => ({ authorization: 'Bearer 99999999999999999999|x' })],
  ['an id at the bigint edge', () => ({ authorization: 'Bearer 9223372036854775808|x' })],
  ['a SQL-looking id', () => ({ authorization: "Bearer 1' OR '1'='1|x" })],
  ['the right id with a wrong secret', () => ({ authorization: `Bearer ${valid.split('|')[0]}|${'x'.repeat(48)}` })],
  ['the token without its scheme', () => ({ authorization: valid })],
  ['a token with a percent-encoded NUL', () => ({ authorization: `${'Bearer '}${valid}%00` })],
  ['a token with a Latin-1 byte', () => ({ authorization: `Bearer ${valid}\u00e9` })],
  ['an 8 KB token', () => ({ authorization: `Bearer 1|${'a'.repeat(8 * 1024)}` })],
  ['two Authorization headers, the valid one first', () => ({ authorization: [`Bearer ${valid}`, 'Bearer 1|x'] })],
  ['the valid token sent twice', () => ({ authorization: [`Bearer ${valid}`, `Bearer ${valid}`] })],
];

describe('every malformed, unknown or ambiguous Authorization gets the same 401', () => {
  it.each(cases)('%s: REST (logout)', async (_name, headers) => {
    const res = await request(t.url, '/api/v1/logout', { method: 'POST', headers: headers() });
    expect(res.status).toBe(401);
    expect(res.text).toBe(REST_BODY);
    expect(res.headers['www-authenticate']).toBe('Bearer');
  });

  it.each(cases)('%s: GraphQL', async (_name, headers) => {
    const res = await request(t.url, '/graphql', { method: 'POST', headers: headers(), body: JSON.parse(QUERY) });
    expect(res.status).toBe(401);
    expect(res.text).toBe(GRAPHQL_BODY);
    expect(res.headers['www-authenticate']).toBe('Bearer');
  });

  it('none of them reached an error path, and the valid token still works', async () => {
    expect(t.logs.lines.filter((l) => JSON.parse(l).level >= 50)).toEqual([]);
    const res = await request(t.url, '/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${valid}` },
    });
    // An empty body with a valid token is Yoga's 400, proving authentication passed.
    expect(res.status).not.toBe(401);
    const ok = await t.graphql('{ products(first: 1) { data { id } } }', { token: valid });
    expect(ok.status).toBe(200);
  });
});

describe('a NUL byte in the header', () => {
  // fetch and node:http refuse to send one, so it goes over a raw socket. Node's HTTP
  // parser rejects control characters in header values with a bare 400 before any
  // application code runs: nothing to fail open, nothing to leak.
  it.each([['/api/v1/logout'], ['/graphql']])('%s: refused by the HTTP parser, never a 500', async (path) => {
    const head =
      `POST ${path} HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n` +
      `Content-Length: ${Buffer.byteLength(QUERY)}\r\nConnection: close\r\n` +
      `Authorization: Bearer ${valid.split('|')[0]}|abc\u0000def\r\n\r\n${QUERY}`;
    const answer = await rawExchange(t.url, Buffer.from(head, 'latin1'));
    expect(answer).toMatch(/^HTTP\/1\.1 400 /);
    expect(answer).not.toMatch(/select|personal_access_tokens|SQLSTATE|at .*\.ts/i);
  });
});

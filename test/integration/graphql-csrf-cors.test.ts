import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.ts';
import { expectOnlyTokenLookup, postGraphQL, rawGraphQL, tokenFor } from '../support/edge.ts';

const ALLOWED = 'https://shop.example.com';
const OTHER = 'https://evil.example.net';

let t: TestApp;
let token: string;
beforeAll(async () => {
  t = await startTestApp({ env: { CORS_ORIGINS: `${ALLOWED}, https://admin.example.com` } });
  token = await tokenFor(t);
});
afterAll(() => t.close());

const QUERY = '{ products(first: 1) { data { id } } }';
const CSRF_REFUSED = { errors: [{ message: 'Required CSRF header(s) not present' }] };

describe('CSRF prevention', () => {
  it('does not execute a GET query without a preflight-forcing header', async () => {
    t.database.queries.reset();
    const res = await rawGraphQL(t, { method: 'GET', token, search: `?query=${encodeURIComponent(QUERY)}` });
    expect(res.status).toBe(403);
    expect(res.body).toEqual(CSRF_REFUSED);
    expectOnlyTokenLookup(t);
  });

  it.each(['x-graphql-yoga-csrf', 'apollo-require-preflight', 'x-apollo-operation-name'])(
    'executes a GET query carrying %s',
    async (header) => {
      const res = await rawGraphQL(t, {
        method: 'GET',
        token,
        search: `?query=${encodeURIComponent(QUERY)}`,
        headers: { [header]: '1' },
      });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ data: { products: { data: [] } } });
    },
  );

  it.each([
    ['text/plain', JSON.stringify({ query: QUERY })],
    ['text/plain;charset=UTF-8', JSON.stringify({ query: QUERY })],
    ['application/x-www-form-urlencoded', `query=${encodeURIComponent(QUERY)}`],
  ])('does not execute a %s POST (a form or fetch without preflight)', async (contentType, body) => {
    t.database.queries.reset();
    const res = await rawGraphQL(t, { token, headers: { 'content-type': contentType }, body });
    expect(res.status).toBe(403);
    expect(res.body).toEqual(CSRF_REFUSED);
    expectOnlyTokenLookup(t);
  });

  it('does not execute a multipart/form-data POST', async () => {
    const form = new FormData();
    form.set('operations', JSON.stringify({ query: QUERY }));
    form.set('map', '{}');
    t.database.queries.reset();
    const res = await fetch(`${t.url}/graphql`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}` },
      body: form,
    });
    expect(res.status).toBe(403);
    expect(await res.json()).toEqual(CSRF_REFUSED);
    expectOnlyTokenLookup(t);
  });

  it('refuses a mutation over GET with 405 and Allow: POST', async () => {
    // With the CSRF header, so the refusal is the method's. The schema has no
    // Mutation type; Yoga's check runs right after parsing, before validation.
    const res = await rawGraphQL(t, {
      method: 'GET',
      token,
      search: `?query=${encodeURIComponent('mutation { __typename }')}`,
      headers: { 'x-graphql-yoga-csrf': '1' },
    });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('POST');
    expect(res.body.errors[0].message).toBe('Can only perform a mutation operation from a POST request.');
  });

  it('keeps GraphiQL working: its page sends JSON POSTs, which need no extra header', async () => {
    const page = await fetch(`${t.url}/graphql`, { headers: { accept: 'text/html' } });
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('id="graphiql-options"');
    // What the page's fetcher (src/graphiql-app/main.tsx) sends for a query: POST, JSON, its Accept header.
    const res = await postGraphQL(t, token, { query: QUERY }, { accept: 'application/json' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: { products: { data: [] } } });
  });
});

describe('CORS', () => {
  it.each(['/graphql', '/api/v1/login', '/api/v1/logout'])(
    'answers a preflight to %s from a listed origin',
    async (path) => {
      const res = await fetch(`${t.url}${path}`, {
        method: 'OPTIONS',
        headers: {
          origin: ALLOWED,
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'authorization, content-type',
        },
      });
      expect(res.status).toBe(204);
      expect(res.headers.get('access-control-allow-origin')).toBe(ALLOWED);
      expect(res.headers.get('access-control-allow-credentials')).toBeNull();
      const allowHeaders = (res.headers.get('access-control-allow-headers') ?? '').toLowerCase();
      for (const h of ['authorization', 'content-type', 'x-graphql-yoga-csrf']) expect(allowHeaders).toContain(h);
      expect(res.headers.get('access-control-allow-methods')).toContain('POST');
      expect(res.headers.get('vary')).toContain('Origin');
    },
  );

  it('gives an unlisted origin no CORS grant, in a preflight or an actual response', async () => {
    const preflight = await fetch(`${t.url}/graphql`, {
      method: 'OPTIONS',
      headers: { origin: OTHER, 'access-control-request-method': 'POST' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBeNull();
    expect(preflight.headers.get('access-control-allow-headers')).toBeNull();
    expect(preflight.headers.get('vary')).toContain('Origin');

    const actual = await postGraphQL(t, token, { query: QUERY }, { origin: OTHER });
    expect(actual.status).toBe(200);
    expect(actual.headers.get('access-control-allow-origin')).toBeNull();
    expect(actual.headers.get('vary')).toContain('Origin');
    // Not even a look-alike of a listed origin.
    const lookalike = await postGraphQL(t, token, { query: QUERY }, { origin: `${ALLOWED}.evil.example.net` });
    expect(lookalike.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('grants a listed origin on actual GraphQL and REST responses, errors included', async () => {
    const ok = await postGraphQL(t, token, { query: QUERY }, { origin: ALLOWED });
    expect(ok.headers.get('access-control-allow-origin')).toBe(ALLOWED);
    expect(ok.headers.get('vary')).toContain('Origin');

    const unauthenticated = await rawGraphQL(t, {
      headers: { origin: 'https://admin.example.com', 'content-type': 'application/json' },
      body: JSON.stringify({ query: QUERY }),
    });
    expect(unauthenticated.status).toBe(401);
    expect(unauthenticated.headers.get('access-control-allow-origin')).toBe('https://admin.example.com');
    expect(unauthenticated.headers.get('access-control-expose-headers')).toContain('WWW-Authenticate');

    const rest = await fetch(`${t.url}/api/v1/login`, {
      method: 'POST',
      headers: { origin: ALLOWED, 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'nobody@example.com', password: 'wrong password' }),
    });
    expect(rest.status).toBe(401);
    expect(rest.headers.get('access-control-allow-origin')).toBe(ALLOWED);
    expect(rest.headers.get('vary')).toContain('Origin');
  });

  it('gives no CORS grant at all when CORS_ORIGINS is empty (the default)', async () => {
    const closed = await startTestApp();
    try {
      expect(closed.config.http.corsOrigins).toEqual([]);
      const res = await fetch(`${closed.url}/graphql`, {
        method: 'OPTIONS',
        headers: { origin: ALLOWED, 'access-control-request-method': 'POST' },
      });
      expect(res.status).toBe(204);
      expect(res.headers.get('access-control-allow-origin')).toBeNull();
    } finally {
      await closed.close();
    }
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

describe('probes and routing', () => {
  it('GET /health answers without a token and without the database', async () => {
    const res = await fetch(`${t.url}/health`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ok' });
  });

  it('GET /ready reports the database reachable and migrated', async () => {
    const res = await fetch(`${t.url}/ready`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ready' });
  });

  it('unknown paths are a JSON 404 and wrong methods a 405 with Allow', async () => {
    const missing = await fetch(`${t.url}/api/v1/nothing`);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({ success: false, message: 'Not found.' });
    const wrong = await fetch(`${t.url}/api/v1/login`);
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get('allow')).toBe('POST');
  });
});

describe('GraphiQL', () => {
  it('serves a self-contained page without a token, whose bundle has the sign-in panel and the example query', async () => {
    const res = await fetch(`${t.url}/graphql`, { headers: { accept: 'text/html' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/html');
    const html = await res.text();
    const bundle = await (await fetch(`${t.url}${/<script src="([^"]+)"/.exec(html)![1]}`)).text();
    expect(bundle).toContain('/api/v1/login');
    expect(bundle).toContain('customisations');
    // No asset from a CDN: offline networks must get a working page.
    expect(html).not.toMatch(/<script[^>]+src=["']https?:/);
    expect(html).not.toMatch(/<link[^>]+href=["']https?:/);
  });
});

describe('GraphQL without a valid token', () => {
  const expected = { errors: [{ message: 'Unauthenticated.', extensions: { code: 'UNAUTHENTICATED' } }] };

  it.each([
    ['no header', undefined],
    ['an unknown token', 'Bearer 999|abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMN00000000'],
    ['a malformed token', 'Bearer nonsense'],
  ])('%s gets 401 with the documented body and a Bearer challenge', async (_name, authorization) => {
    const res = await fetch(`${t.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(authorization ? { authorization } : {}) },
      body: JSON.stringify({ query: '{ products(first: 1) { data { id } } }' }),
    });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe('Bearer');
    expect(await res.json()).toEqual(expected);
  });

  it('a GET query without a token is refused too', async () => {
    const res = await fetch(`${t.url}/graphql?query=${encodeURIComponent('{ __typename }')}`);
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual(expected);
  });
});

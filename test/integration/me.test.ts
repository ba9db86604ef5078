import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.ts';
import { request } from '../support/raw-http.ts';

// `me` answers who is asking. The test app runs the shared response cache, so these tests also
// show a per-caller answer is never served to anyone else.

const ME = '{ me { user { id name email isAdmin } token { id name abilities expiresAt } } }';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t?.close());

const createToken = async (token: string, body: object) => {
  const res = await request(t.url, '/api/v1/tokens', { method: 'POST', token, body });
  expect(res.status).toBe(201);
  return (JSON.parse(res.text) as { data: { token: string } }).data.token;
};

describe('me', () => {
  it('names the caller and the token it sent', async () => {
    const ada = await t.createUser({ name: 'Ada', email: 'ada-me@example.com', isAdmin: true });
    const token = await t.login(ada.email, ada.password);
    const res = await t.graphql(ME, { token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      data: {
        me: {
          user: { id: ada.id, name: 'Ada', email: 'ada-me@example.com', isAdmin: true },
          token: { id: token.split('|')[0], name: 'login', abilities: ['*'], expiresAt: null },
        },
      },
    });
  });

  it('needs only a valid token: no ability, but a token', async () => {
    const bea = await t.createUser();
    const login = await t.login(bea.email, bea.password);
    const expiresAt = new Date(Date.now() + 3_600_000).toISOString();
    const bare = await createToken(login, { name: 'bare', abilities: [], expires_at: expiresAt });
    const res = await t.graphql(ME, { token: bare });
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.me.token).toEqual({ id: bare.split('|')[0], name: 'bare', abilities: [], expiresAt });
    // The same token cannot read the catalogue: `me` is the exception, not a hole.
    expect((await t.graphql('{ products { data { id } } }', { token: bare })).body.errors[0].extensions.code).toBe(
      'FORBIDDEN',
    );
    expect((await t.graphql(ME)).status).toBe(401);
    expect((await t.graphql(ME, { token: `${login}x` })).status).toBe(401);
  });

  it('is never shared: two users with the same scopes asking the same document each get their own', async () => {
    const users = [await t.createUser(), await t.createUser()];
    const tokens = await Promise.all(users.map((u) => t.login(u.email, u.password)));
    // Both hold exactly the same scopes, so a shared answer would be keyed alike; ask in turns, repeatedly.
    for (let round = 0; round < 3; round++) {
      for (const [i, token] of tokens.entries()) {
        const res = await t.graphql(ME, { token });
        expect(res.body.data.me.user.email).toBe(users[i]!.email);
        expect(res.body.data.me.token.id).toBe(token.split('|')[0]);
      }
    }
    // Mixed with a public, cacheable field: the document as a whole is not shared either.
    const mixed = '{ products(first: 1) { data { id } } me { user { email } } }';
    for (const [i, token] of tokens.entries()) {
      expect((await t.graphql(mixed, { token })).body.data.me.user.email).toBe(users[i]!.email);
    }
  });
});

describe('GET /', () => {
  it('answers a small JSON index of the entry points, without a token', async () => {
    const res = await request(t.url, '/');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    const body = JSON.parse(res.text);
    expect(
      Object.fromEntries(Object.entries(body.links as Record<string, { href: string }>).map(([k, v]) => [k, v.href])),
    ).toEqual({
      graphql: '/graphql',
      login: '/api/v1/login',
      logout: '/api/v1/logout',
      tokens: '/api/v1/tokens',
      openapi: '/api/v1/openapi.json',
      health: '/health',
      ready: '/ready',
    });
    expect(res.body.length).toBeLessThan(2048);
  });
});

import { createHash } from 'node:crypto';
import { crc32 } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.ts';

let t: TestApp;
let user: { id: string; email: string; password: string };

const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${t.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });

beforeAll(async () => {
  t = await startTestApp();
  user = await t.createUser({ email: 'ada@example.com', name: 'Ada Lovelace', password: 'correct horse battery' });
});
afterAll(() => t?.close());

describe('POST /api/v1/login', () => {
  it('returns a Sanctum-style token and the user record', async () => {
    const res = await post('/api/v1/login', { email: user.email, password: user.password });
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const body = await res.json();
    expect(body).toEqual({
      success: true,
      data: {
        token: expect.any(String),
        user: {
          id: Number(user.id),
          name: 'Ada Lovelace',
          email: 'ada@example.com',
          is_admin: false,
          created_at: expect.any(String),
        },
      },
    });
    const [id, secret] = body.data.token.split('|');
    expect(id).toMatch(/^[1-9][0-9]*$/);
    // 40 characters of [A-Za-z0-9], then the crc32b of those 40.
    expect(secret).toMatch(/^[A-Za-z0-9]{40}[0-9a-f]{8}$/);
    expect(secret.slice(40)).toBe(crc32(secret.slice(0, 40)).toString(16).padStart(8, '0'));
    expect(new Date(body.data.user.created_at).toISOString()).toBe(body.data.user.created_at);

    // Only sha256(secret) is at rest, under the token's id.
    const row = await t.database.handle.db
      .selectFrom('personal_access_tokens')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    expect(row.token_hash.trim()).toBe(createHash('sha256').update(secret).digest('hex'));
    expect(JSON.stringify(row)).not.toContain(secret);
  });

  it('accepts the email in any case and with surrounding spaces', async () => {
    const res = await post('/api/v1/login', { email: '  ADA@Example.com ', password: user.password });
    expect(res.status).toBe(200);
  });

  it('stores passwords as argon2id', async () => {
    const row = await t.database.handle.db
      .selectFrom('users')
      .select('password_hash')
      .where('id', '=', user.id)
      .executeTakeFirstOrThrow();
    expect(row.password_hash).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
  });

  it('answers a wrong password and an unknown email identically', async () => {
    const wrong = await post('/api/v1/login', { email: user.email, password: 'wrong password' });
    const unknown = await post('/api/v1/login', { email: 'nobody@example.com', password: 'wrong password' });
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    const wrongText = await wrong.text();
    expect(wrongText).toBe('{"success":false,"message":"Invalid credentials."}');
    expect(await unknown.text()).toBe(wrongText);
  });

  it('explains missing and malformed fields with a 422 per field', async () => {
    const res = await post('/api/v1/login', { email: 'not-an-email' });
    expect(res.status).toBe(422);
    expect(await res.json()).toEqual({
      success: false,
      message: 'The email field must be a valid email address. (and 1 more error)',
      errors: {
        email: ['The email field must be a valid email address.'],
        password: ['The password field is required.'],
      },
    });
    const empty = await post('/api/v1/login', {});
    expect(empty.status).toBe(422);
    expect((await empty.json()).errors).toEqual({
      email: ['The email field is required.'],
      password: ['The password field is required.'],
    });
    const wrongTypes = await post('/api/v1/login', { email: 42, password: ['x'] });
    expect(wrongTypes.status).toBe(422);
  });

  it('refuses malformed JSON with 400 and the same envelope', async () => {
    const res = await post('/api/v1/login', '{"email": ');
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ success: false, message: 'The request body is not valid JSON.' });
    const array = await post('/api/v1/login', '[1,2]');
    expect(array.status).toBe(400);
  });

  it('refuses a body over the limit with 413', async () => {
    const res = await post('/api/v1/login', { email: user.email, password: 'x'.repeat(100_000) });
    expect(res.status).toBe(413);
    expect((await res.json()).success).toBe(false);
  });

  it("refuses a form-encoded body with 415: a hostile page could post one from a victim's browser", async () => {
    const res = await fetch(`${t.url}/api/v1/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ email: user.email, password: user.password }).toString(),
    });
    expect(res.status).toBe(415);
  });
});

describe('POST /api/v1/logout', () => {
  it('revokes the token used, on REST and GraphQL, and leaves the other tokens valid', async () => {
    const kept = await t.login(user.email, user.password);
    const revoked = await t.login(user.email, user.password);
    expect((await t.graphql('{ __typename }', { token: revoked })).status).toBe(200);

    const res = await post('/api/v1/logout', '', { authorization: `Bearer ${revoked}` });
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(await res.json()).toEqual({ success: true, message: 'Logged out.' });

    const again = await post('/api/v1/logout', '', { authorization: `Bearer ${revoked}` });
    expect(again.status).toBe(401);
    expect(again.headers.get('www-authenticate')).toBe('Bearer');
    expect(await again.json()).toEqual({ success: false, message: 'Unauthenticated.' });

    const gql = await t.graphql('{ __typename }', { token: revoked });
    expect(gql.status).toBe(401);
    expect(gql.body).toEqual({ errors: [{ message: 'Unauthenticated.', extensions: { code: 'UNAUTHENTICATED' } }] });

    const other = await t.graphql('{ __typename }', { token: kept });
    expect(other.status).toBe(200);
    expect(other.body).toEqual({ data: { __typename: 'Query' } });
  });

  it('requires a token', async () => {
    const res = await post('/api/v1/logout', '');
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({ success: false, message: 'Unauthenticated.' });
  });

  it('refuses a token whose secret does not match', async () => {
    const token = await t.login(user.email, user.password);
    const [id, secret] = token.split('|') as [string, string];
    const forged = `${id}|${secret.slice(0, -1)}${secret.endsWith('0') ? '1' : '0'}`;
    const res = await post('/api/v1/logout', '', { authorization: `Bearer ${forged}` });
    expect(res.status).toBe(401);
    expect((await t.graphql('{ __typename }', { token })).status).toBe(200);
  });
});

describe('TOKEN_PREFIX', () => {
  it('puts the instance prefix in front of the secret, and such tokens work', async () => {
    const prefixed = await startTestApp({ env: { TOKEN_PREFIX: 'pcs_' }, database: t.database });
    try {
      const token = await prefixed.login(user.email, user.password);
      expect(token).toMatch(/^\d+\|pcs_[A-Za-z0-9]{40}[0-9a-f]{8}$/);
      expect((await prefixed.graphql('{ __typename }', { token })).status).toBe(200);
    } finally {
      await prefixed.close();
    }
  });
});

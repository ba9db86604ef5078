import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.ts';
import { createTestDatabase } from '../support/database.ts';
import { request } from '../support/raw-http.ts';

let t: TestApp;
let ada: { id: string; email: string; password: string };
let bea: { id: string; email: string; password: string };
let root: { id: string; email: string; password: string };

const UNAUTHENTICATED = { success: false, message: 'Unauthenticated.' };
const GRAPHQL_UNAUTHENTICATED = { errors: [{ message: 'Unauthenticated.', extensions: { code: 'UNAUTHENTICATED' } }] };
const QUERY = '{ products(first: 1) { data { id } } }';

const auth = (token: string) => ({ authorization: `Bearer ${token}` });
const listTokens = (token: string, url = t.url) => request(url, '/api/v1/tokens', { headers: auth(token) });
const revoke = (token: string, id: string) =>
  request(t.url, `/api/v1/tokens/${id}`, { method: 'DELETE', headers: auth(token) });
const tokenId = (token: string) => token.split('|')[0]!;
/** The status `ask` gives once it is `expected`, or the last one after a second: how long a change notification may take. */
async function within1s(ask: () => Promise<number>, expected: number): Promise<number> {
  const started = Date.now();
  let seen = await ask();
  while (seen !== expected && Date.now() - started < 1_000) seen = await ask();
  return seen;
}

beforeAll(async () => {
  t = await startTestApp();
  ada = await t.createUser({ email: 'ada@example.com' });
  bea = await t.createUser({ email: 'bea@example.com' });
  root = await t.createUser({ email: 'root@example.com', isAdmin: true });
});
afterAll(() => t?.close());

describe('expiry', () => {
  it('a token past its own expires_at gets 401 on REST and GraphQL', async () => {
    const token = await t.login(ada.email, ada.password);
    expect((await listTokens(token)).status).toBe(200);
    await sql`UPDATE personal_access_tokens SET expires_at = now() - interval '1 second' WHERE id = ${tokenId(token)}`.execute(
      t.database.handle.db,
    );
    // Changed outside the service: the token cache hears of it through tokens_changed, within a second.
    expect(await within1s(async () => (await listTokens(token)).status, 401)).toBe(401);
    const rest = await listTokens(token);
    expect(rest.status).toBe(401);
    expect(rest.json()).toEqual(UNAUTHENTICATED);
    expect(rest.headers['www-authenticate']).toBe('Bearer');
    const gql = await t.graphql(QUERY, { token });
    expect(gql.status).toBe(401);
    expect(gql.body).toEqual(GRAPHQL_UNAUTHENTICATED);
  });

  it('TOKEN_EXPIRATION_MINUTES refuses tokens older than that; younger ones and unlimited instances still work', async () => {
    const limited = await startTestApp({ database: t.database, env: { TOKEN_EXPIRATION_MINUTES: '1' } });
    try {
      const old = await limited.login(ada.email, ada.password);
      const fresh = await limited.login(ada.email, ada.password);
      expect((await listTokens(old, limited.url)).status).toBe(200);
      await sql`UPDATE personal_access_tokens SET created_at = now() - interval '2 minutes' WHERE id = ${tokenId(old)}`.execute(
        t.database.handle.db,
      );

      expect(await within1s(async () => (await listTokens(old, limited.url)).status, 401)).toBe(401);
      const rest = await listTokens(old, limited.url);
      expect(rest.status).toBe(401);
      expect(rest.json()).toEqual(UNAUTHENTICATED);
      const gql = await limited.graphql(QUERY, { token: old });
      expect(gql.status).toBe(401);
      expect(gql.body).toEqual(GRAPHQL_UNAUTHENTICATED);

      const listed = await listTokens(fresh, limited.url);
      expect(listed.status).toBe(200);
      // The listing shows when a token stops working under the instance lifetime.
      const own = listed.json().data.find((x: any) => x.current);
      expect(Date.parse(own.expires_at) - Date.parse(own.created_at)).toBe(60_000);

      // The same old token on an instance without a lifetime is still good.
      expect((await t.graphql(QUERY, { token: old })).status).toBe(200);
    } finally {
      await limited.close();
    }
  });
});

describe('GET /api/v1/tokens', () => {
  it("lists the caller's tokens only, marks the current one, never shows a hash or secret", async () => {
    const first = await t.login(bea.email, bea.password);
    const second = await t.login(bea.email, bea.password);
    await t.login(ada.email, ada.password);
    const expiresAt = new Date(Date.now() + 3_600_000);
    await sql`UPDATE personal_access_tokens SET expires_at = ${expiresAt} WHERE id = ${tokenId(first)}`.execute(
      t.database.handle.db,
    );

    const res = await listTokens(second);
    expect(res.status).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    const body = res.json();
    expect(body.success).toBe(true);
    expect(body.data.map((x: any) => x.id)).toEqual([Number(tokenId(first)), Number(tokenId(second))]);
    for (const item of body.data) {
      expect(Object.keys(item).sort()).toEqual([
        'abilities',
        'created_at',
        'current',
        'expires_at',
        'id',
        'last_used_at',
        'name',
      ]);
      expect(item.name).toBe('login');
      expect(new Date(item.created_at).toISOString()).toBe(item.created_at);
    }
    expect(body.data.map((x: any) => x.current)).toEqual([false, true]);
    expect(body.data[0].expires_at).toBe(expiresAt.toISOString());
    expect(body.data[1].expires_at).toBeNull();
    // The listing request itself is a use of the current token.
    expect(body.data[1].last_used_at).not.toBeNull();

    const hashes = await sql<{ token_hash: string }>`SELECT token_hash FROM personal_access_tokens`.execute(
      t.database.handle.db,
    );
    for (const { token_hash } of hashes.rows) expect(res.text).not.toContain(token_hash.trim());
    expect(res.text).not.toContain(first.split('|')[1]);
    expect(res.text).not.toContain(second.split('|')[1]);
  });

  it('needs a token', async () => {
    const res = await request(t.url, '/api/v1/tokens');
    expect(res.status).toBe(401);
    expect(res.json()).toEqual(UNAUTHENTICATED);
    expect(res.headers['cache-control']).toBe('no-store');
  });
});

describe('DELETE /api/v1/tokens/{id}', () => {
  it("revokes the caller's own token at once; a second delete is a 404", async () => {
    const keep = await t.login(ada.email, ada.password);
    const victim = await t.login(ada.email, ada.password);
    const res = await revoke(keep, tokenId(victim));
    expect(res.status).toBe(200);
    expect(res.json()).toEqual({ success: true, message: 'Token revoked.' });
    expect(res.headers['cache-control']).toBe('no-store');
    expect((await listTokens(victim)).status).toBe(401);
    expect((await t.graphql(QUERY, { token: victim })).status).toBe(401);
    expect((await listTokens(keep)).status).toBe(200);
    const again = await revoke(keep, tokenId(victim));
    expect(again.status).toBe(404);
    expect(again.json()).toEqual({ success: false, message: 'Token not found.' });
    expect(again.headers['cache-control']).toBe('no-store');
  });

  it("another user's token looks absent (404) and keeps working", async () => {
    const adas = await t.login(ada.email, ada.password);
    const beas = await t.login(bea.email, bea.password);
    const res = await revoke(adas, tokenId(beas));
    expect(res.status).toBe(404);
    expect(res.json()).toEqual({ success: false, message: 'Token not found.' });
    expect((await listTokens(beas)).status).toBe(200);
  });

  it("an administrator revokes anyone's token", async () => {
    const admin = await t.login(root.email, root.password);
    const beas = await t.login(bea.email, bea.password);
    const res = await revoke(admin, tokenId(beas));
    expect(res.status).toBe(200);
    expect(res.json()).toEqual({ success: true, message: 'Token revoked.' });
    expect((await listTokens(beas)).status).toBe(401);
  });

  it.each([['999999'], ['abc'], ['0'], ['-1'], ['1.5'], ['99999999999999999999'], ['%00']])(
    'id %s is a 404, never a 500',
    async (id) => {
      const admin = await t.login(root.email, root.password);
      const res = await revoke(admin, id);
      expect(res.status).toBe(404);
      expect(res.json()).toEqual({ success: false, message: 'Token not found.' });
    },
  );

  it('needs a token', async () => {
    const res = await request(t.url, '/api/v1/tokens/1', { method: 'DELETE' });
    expect(res.status).toBe(401);
    expect(res.json()).toEqual(UNAUTHENTICATED);
  });
});

describe('last_used_at', () => {
  const touches = () =>
    t.database.queries.statements.filter((s) => /^update "personal_access_tokens" set "last_used_at"/i.test(s)).length;
  const lastUsed = async (token: string) =>
    (
      await t.database.handle.db
        .selectFrom('personal_access_tokens')
        .select('last_used_at')
        .where('id', '=', tokenId(token))
        .executeTakeFirstOrThrow()
    ).last_used_at;

  it('is written on first use and at most once a minute after that', async () => {
    // A minute passes in the database here, which a token cache's memory of its last write would not see.
    const u = await startTestApp({ database: t.database, env: { TOKEN_CACHE_MAX_ENTRIES: '0' } });
    try {
      const token = await u.login(ada.email, ada.password);
      expect(await lastUsed(token)).toBeNull();
      t.database.queries.reset();

      expect((await listTokens(token, u.url)).status).toBe(200);
      expect((await u.graphql(QUERY, { token })).status).toBe(200);
      expect((await listTokens(token, u.url)).status).toBe(200);
      expect(touches()).toBe(1);
      const first = await lastUsed(token);
      expect(first).toBeInstanceOf(Date);

      // A minute later the next request records the use again.
      await sql`UPDATE personal_access_tokens SET last_used_at = now() - interval '61 seconds' WHERE id = ${tokenId(token)}`.execute(
        t.database.handle.db,
      );
      t.database.queries.reset();
      expect((await listTokens(token, u.url)).status).toBe(200);
      expect(touches()).toBe(1);
      expect((await lastUsed(token))!.getTime()).toBeGreaterThan(first!.getTime() - 1_000);
    } finally {
      await u.close();
    }
  });
});

describe('logout', () => {
  it('deletes only the token used; answers carry no-store', async () => {
    const a = await t.login(ada.email, ada.password);
    const b = await t.login(ada.email, ada.password);
    const res = await request(t.url, '/api/v1/logout', { method: 'POST', headers: auth(a) });
    expect(res.status).toBe(200);
    expect(res.json()).toEqual({ success: true, message: 'Logged out.' });
    expect(res.headers['cache-control']).toBe('no-store');
    expect((await listTokens(a)).status).toBe(401);
    expect((await listTokens(b)).status).toBe(200);
    const again = await request(t.url, '/api/v1/logout', { method: 'POST', headers: auth(a) });
    expect(again.status).toBe(401);
    expect(again.headers['cache-control']).toBe('no-store');
  });
});

describe('revocation across instances', () => {
  it('a logout on one instance is refused on the other within a second', async () => {
    const database = await createTestDatabase();
    const one = await startTestApp({ database });
    const two = await startTestApp({ database });
    try {
      const user = await one.createUser({ email: 'twice@example.com' });
      const token = await one.login(user.email, user.password);
      expect((await two.graphql(QUERY, { token })).status).toBe(200);
      expect((await listTokens(token, two.url)).status).toBe(200);

      const out = await request(one.url, '/api/v1/logout', { method: 'POST', headers: auth(token) });
      expect(out.status).toBe(200);

      expect(await within1s(async () => (await two.graphql(QUERY, { token })).status, 401)).toBe(401);
      const gql = await two.graphql(QUERY, { token });
      expect(gql.body).toEqual(GRAPHQL_UNAUTHENTICATED);
      expect((await listTokens(token, two.url)).status).toBe(401);
    } finally {
      await one.close();
      await two.close();
      await database.drop();
    }
  });

  it('so does a revocation by an administrator', async () => {
    const second = await startTestApp({ database: t.database });
    try {
      const token = await t.login(bea.email, bea.password);
      expect((await second.graphql(QUERY, { token })).status).toBe(200);
      const admin = await t.login(root.email, root.password);
      expect((await revoke(admin, tokenId(token))).status).toBe(200);
      expect(await within1s(async () => (await second.graphql(QUERY, { token })).status, 401)).toBe(401);
    } finally {
      await second.close();
    }
  });
});

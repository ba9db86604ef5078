import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TOKENS_CHANGED } from '../../src/modules/auth/token-cache.ts';
import { startTestApp, type TestApp } from '../support/app.ts';

// Verified tokens kept per process: a repeated request skips the lookup, but nothing that would
// refuse a token is missed. Both back ends: the database notifies changes made outside the service.

const METRICS_TOKEN = 'token-cache-metrics-token-0123456789';
const READ = '{ products(first: 1) { data { id } } }';

describe('the token cache', () => {
  let t: TestApp;

  const status = async (token: string) => (await t.graphql('{ __typename }', { token })).status;
  const lookups = () => t.database.queries.statements.filter((s) => /personal_access_tokens/.test(s)).length;
  const freshToken = async (isAdmin = false) => {
    const user = await t.createUser({ isAdmin });
    const token = await t.login(user.email, user.password);
    expect(await status(token)).toBe(200);
    return { user, token, id: token.split('|')[0]! };
  };
  /** Asks until `ok`, for at most a second: how long a notification may take. */
  const within1s = async (ask: () => Promise<number>, expected: number) => {
    const started = Date.now();
    let seen = await ask();
    while (seen !== expected && Date.now() - started < 1_000) {
      await new Promise((r) => setTimeout(r, 10));
      seen = await ask();
    }
    return seen;
  };
  const metric = async (name: string) => {
    const text = await (
      await fetch(`${t.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })
    ).text();
    return Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1] ?? NaN);
  };
  const db = () => t.database.handle.db;

  beforeAll(async () => {
    t = await startTestApp({ env: { METRICS_TOKEN } });
  });
  afterAll(() => t?.close());

  it('authenticates a repeated request without a statement, and still compares the secret', async () => {
    const { token, id } = await freshToken();
    // A change notification still on its way (from setting up the user) would empty the cache after the
    // request above filled it: let every one sent so far land, then fill it again.
    expect(await t.app.changes!.sync(TOKENS_CHANGED, 5_000)).toBe(true);
    expect(await status(token)).toBe(200);
    const hits = await metric('auth_token_cache_hits_total');
    t.database.queries.reset();
    expect(await status(token)).toBe(200);
    expect(t.database.queries.statements).toEqual([]);
    expect(await metric('auth_token_cache_hits_total')).toBe(hits + 1);

    const secret = token.split('|')[1]!;
    const wrong = `${id}|${secret.slice(0, -1)}${secret.endsWith('a') ? 'b' : 'a'}`;
    expect(await status(wrong)).toBe(401);
    expect(await status(token)).toBe(200);
  });

  it('a token this process logs out or revokes is refused at once', async () => {
    const { token } = await freshToken();
    const logout = await fetch(`${t.url}/api/v1/logout`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}` },
    });
    expect(logout.status).toBe(200);
    expect(await status(token)).toBe(401);

    const { user, token: victim, id } = await freshToken();
    const other = await t.login(user.email, user.password);
    const revoke = await fetch(`${t.url}/api/v1/tokens/${id}`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${other}` },
    });
    expect(revoke.status).toBe(200);
    expect(await status(victim)).toBe(401);
  });

  it('a token deleted, narrowed, or whose user is demoted or deleted outside the service is refused within a second', async () => {
    const deleted = await freshToken();
    await sql`DELETE FROM personal_access_tokens WHERE id = ${deleted.id}`.execute(db());
    expect(await within1s(() => status(deleted.token), 401)).toBe(401);

    const narrowed = await freshToken();
    const reads = async () =>
      (await t.graphql(READ, { token: narrowed.token })).body.errors?.[0]?.extensions?.code === 'FORBIDDEN' ? 403 : 200;
    expect(await reads()).toBe(200);
    await sql`UPDATE personal_access_tokens SET abilities = '[]'::jsonb WHERE id = ${narrowed.id}`.execute(db());
    expect(await within1s(reads, 403)).toBe(403);

    const admin = await freshToken(true);
    const writes = async () => {
      const { body } = await t.graphql('mutation { deleteProduct(id: "999999") { id } }', { token: admin.token });
      return body.errors?.[0]?.extensions?.code === 'FORBIDDEN' ? 403 : 200;
    };
    expect(await writes()).toBe(200);
    await sql`UPDATE users SET is_admin = false WHERE id = ${admin.user.id}`.execute(db());
    expect(await within1s(writes, 403)).toBe(403);

    const gone = await freshToken();
    await sql`DELETE FROM users WHERE id = ${gone.user.id}`.execute(db());
    expect(await within1s(() => status(gone.token), 401)).toBe(401);
  });

  it('a cached token is refused once it expires', async () => {
    const { token, id } = await freshToken();
    await sql`UPDATE personal_access_tokens SET expires_at = now() + interval '1500 milliseconds' WHERE id = ${id}`.execute(
      db(),
    );
    // The update emptied the cache (notified): look the token up again, with its expiry, and keep it.
    await within1s(async () => ((await metric('auth_token_cache_entries')) === 0 ? 0 : 1), 0);
    expect(await status(token)).toBe(200);
    t.database.queries.reset();
    expect(await status(token)).toBe(200);
    expect(lookups()).toBe(0);
    await new Promise((r) => setTimeout(r, 1_600));
    expect(await status(token)).toBe(401);
  });

  it('TOKEN_CACHE_MAX_ENTRIES=0 turns it off: every request looks its token up', async () => {
    const off = await startTestApp({ env: { TOKEN_CACHE_MAX_ENTRIES: '0' } });
    try {
      const user = await off.createUser();
      const token = await off.login(user.email, user.password);
      for (let i = 0; i < 3; i++) {
        off.database.queries.reset();
        expect((await off.graphql('{ __typename }', { token })).status).toBe(200);
        const lookedUp = off.database.queries.statements.filter(
          (s) => /^select/i.test(s) && /personal_access_tokens/.test(s),
        );
        expect(lookedUp).toHaveLength(1);
      }
    } finally {
      await off.close();
    }
  });
});

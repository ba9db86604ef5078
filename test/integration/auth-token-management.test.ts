import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.ts';

// Issue 20, finding 1: managing tokens is its own ability (tokens:manage), a token dies with the token it was
// created from, and tokens per user are bounded. Each case is one the security probe made work.

let t: TestApp;
let admin: { id: string; email: string; password: string };
let other: { id: string; email: string; password: string };
let adminLogin: string;
let otherLogin: string;

const FORBIDDEN = { success: false, message: 'This action is unauthorized.' };
const READ = '{ products(first: 1) { data { id } } }';
const auth = (token: string) => ({ authorization: `Bearer ${token}` });
const idOf = (token: string) => token.split('|')[0]!;

async function call(app: TestApp, method: string, path: string, token: string, body?: unknown) {
  const res = await fetch(`${app.url}${path}`, {
    method,
    headers: { ...auth(token), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}
const list = (token: string, app = t) => call(app, 'GET', '/api/v1/tokens', token);
const revoke = (token: string, id: string, app = t) => call(app, 'DELETE', `/api/v1/tokens/${id}`, token);
const logout = (token: string, app = t) => call(app, 'POST', '/api/v1/logout', token);
async function create(token: string, body: Record<string, unknown>, app = t): Promise<string> {
  const res = await call(app, 'POST', '/api/v1/tokens', token, body);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.data.token;
}
/** 200 while the token works (a catalogue read), 401 once it does not. */
const statusOf = async (token: string, app = t) => (await call(app, 'POST', '/graphql', token, { query: READ })).status;
const rowExists = async (token: string) =>
  (await sql`SELECT 1 FROM personal_access_tokens WHERE id = ${idOf(token)}`.execute(t.database.handle.db)).rows
    .length === 1;

beforeAll(async () => {
  t = await startTestApp();
  admin = await t.createUser({ isAdmin: true });
  other = await t.createUser();
  adminLogin = await t.login(admin.email, admin.password);
  otherLogin = await t.login(other.email, other.password);
});
afterAll(() => t?.close());

describe('tokens:manage', () => {
  it("a token with no abilities may not list, create or revoke tokens, even its admin owner's or another user's; it may log out", async () => {
    const empty = await create(adminLogin, { name: 'nothing', abilities: [] });
    expect(await list(empty)).toEqual({ status: 403, body: FORBIDDEN });
    expect(await call(t, 'POST', '/api/v1/tokens', empty, { name: 'child', abilities: [] })).toEqual({
      status: 403,
      body: FORBIDDEN,
    });
    expect(await revoke(empty, idOf(otherLogin))).toEqual({ status: 403, body: FORBIDDEN });
    expect(await revoke(empty, idOf(adminLogin))).toEqual({ status: 403, body: FORBIDDEN });
    expect(await statusOf(otherLogin)).toBe(200);
    expect(await statusOf(adminLogin)).toBe(200);

    expect(await logout(empty)).toEqual({ status: 200, body: { success: true, message: 'Logged out.' } });
    expect(await rowExists(empty)).toBe(false);
  });

  it("a catalog:read token cannot mint children, nor revoke its owner's login token", async () => {
    const reader = await create(adminLogin, { name: 'storefront', abilities: ['catalog:read'] });
    expect(await statusOf(reader)).toBe(200);
    expect((await call(t, 'POST', '/api/v1/tokens', reader, { name: 'child' })).status).toBe(403);
    expect(await revoke(reader, idOf(adminLogin))).toEqual({ status: 403, body: FORBIDDEN });
    expect(await list(reader)).toEqual({ status: 403, body: FORBIDDEN });
    expect(await statusOf(adminLogin)).toBe(200);
  });

  it('tokens:manage alone lists, creates and revokes; administrators revoke any token with it', async () => {
    const manager = await create(otherLogin, { name: 'manager', abilities: ['tokens:manage'] });
    expect((await list(manager)).status).toBe(200);
    const made = await create(manager, { name: 'made' });
    expect((await revoke(manager, idOf(made))).status).toBe(200);

    const victim = await t.login(other.email, other.password);
    const adminManager = await create(adminLogin, { name: 'admin-manager', abilities: ['tokens:manage'] });
    expect((await revoke(adminManager, idOf(victim))).status).toBe(200);
    expect(await statusOf(victim)).toBe(401);
  });
});

describe('a token dies with the token it was created from', () => {
  it('revoking a token revokes its children and grandchildren at once, on every instance', async () => {
    const second = await startTestApp({ database: t.database });
    try {
      const parent = await create(adminLogin, { name: 'parent' });
      const child = await create(parent, { name: 'child' });
      const grandchild = await create(child, { name: 'grandchild', abilities: ['catalog:read'] });
      // Each instance has verified (and cached) all three.
      for (const token of [parent, child, grandchild]) {
        expect(await statusOf(token)).toBe(200);
        expect(await statusOf(token, second)).toBe(200);
      }

      expect((await revoke(adminLogin, idOf(parent))).status).toBe(200);
      for (const token of [parent, child, grandchild]) {
        expect(await statusOf(token)).toBe(401);
        expect(await rowExists(token)).toBe(false);
      }
      // The other instance hears of it through tokens_changed (the cascade is part of the parent's DELETE).
      const deadline = Date.now() + 1_000;
      let seen = await statusOf(grandchild, second);
      while (seen !== 401 && Date.now() < deadline) seen = await statusOf(grandchild, second);
      expect(seen).toBe(401);
      expect(await statusOf(child, second)).toBe(401);
      // A login token is a root: nothing it made went with anything.
      expect(await statusOf(adminLogin)).toBe(200);
    } finally {
      await second.close();
    }
  });

  it('logging out with a token revokes what it created; logging out with a login token ends only that token', async () => {
    const session = await t.login(other.email, other.password);
    const root = await create(session, { name: 'root' });
    const child = await create(root, { name: 'child' });
    const grandchild = await create(child, { name: 'grandchild' });
    expect((await logout(root)).status).toBe(200);
    for (const token of [root, child, grandchild]) expect(await statusOf(token)).toBe(401);

    const kept = await create(session, { name: 'kept' });
    expect((await logout(session)).status).toBe(200);
    expect(await statusOf(session)).toBe(401);
    expect(await statusOf(kept)).toBe(200);
  });

  it('a token whose parent (or grandparent) expired is refused, and listed as expired then', async () => {
    const parent = await create(otherLogin, { name: 'expiring parent' });
    const child = await create(parent, { name: 'child' });
    const grandchild = await create(child, { name: 'grandchild' });
    for (const token of [child, grandchild]) expect(await statusOf(token)).toBe(200);

    const past = new Date(Date.now() - 1_000);
    await sql`UPDATE personal_access_tokens SET expires_at = ${past} WHERE id = ${idOf(parent)}`.execute(
      t.database.handle.db,
    );
    // A change made outside the service reaches the token cache through tokens_changed: within a second.
    for (const token of [parent, child, grandchild]) {
      const deadline = Date.now() + 1_000;
      let seen = await statusOf(token);
      while (seen !== 401 && Date.now() < deadline) seen = await statusOf(token);
      expect(seen).toBe(401);
    }

    const listed = (await list(otherLogin)).body.data as { id: number; expires_at: string | null }[];
    for (const token of [child, grandchild]) {
      expect(listed.find((x) => String(x.id) === idOf(token))!.expires_at).toBe(past.toISOString());
    }
  });
});

describe('per-user bounds', () => {
  it('MAX_TOKENS_PER_USER caps created tokens with a 422 naming the cap; login tokens do not count', async () => {
    const capped = await startTestApp({ database: t.database, env: { MAX_TOKENS_PER_USER: '3' } });
    try {
      const user = await t.createUser();
      const login = await capped.login(user.email, user.password);
      await capped.login(user.email, user.password);
      const made = [await create(login, { name: 'one' }, capped), await create(login, { name: 'two' }, capped)];
      // Two requests race for the last place: exactly one gets it.
      const race = await Promise.all(
        [1, 2].map((n) => call(capped, 'POST', '/api/v1/tokens', login, { name: `race ${n}` })),
      );
      expect(race.map((r) => r.status).sort()).toEqual([201, 422]);
      const refused = await call(capped, 'POST', '/api/v1/tokens', made[0]!, { name: 'four' });
      expect(refused.status).toBe(422);
      expect(refused.body.success).toBe(false);
      expect(refused.body.message).toContain('at most 3');
      expect(refused.body.errors.tokens[0]).toContain('at most 3');
      const count = await sql<{
        n: string;
      }>`SELECT count(*) AS n FROM personal_access_tokens WHERE user_id = ${user.id} AND kind = 'created'`.execute(
        t.database.handle.db,
      );
      expect(Number(count.rows[0]!.n)).toBe(3);

      // A place freed is a place again.
      expect((await revoke(login, idOf(made[1]!), capped)).status).toBe(200);
      await create(login, { name: 'again' }, capped);
    } finally {
      await capped.close();
    }
  });

  it('MAX_LOGIN_TOKENS_PER_USER: a new login revokes the oldest login token; created tokens stay', async () => {
    const capped = await startTestApp({ database: t.database, env: { MAX_LOGIN_TOKENS_PER_USER: '2' } });
    try {
      const user = await t.createUser();
      const first = await capped.login(user.email, user.password);
      const made = await create(first, { name: 'integration' }, capped);
      const second = await capped.login(user.email, user.password);
      expect(await statusOf(first, capped)).toBe(200);
      const third = await capped.login(user.email, user.password);
      expect(await statusOf(first, capped)).toBe(401);
      expect(await statusOf(second, capped)).toBe(200);
      expect(await statusOf(third, capped)).toBe(200);
      expect(await statusOf(made, capped)).toBe(200);
    } finally {
      await capped.close();
    }
  });
});

import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.ts';

// POST /api/v1/tokens: Sanctum's createToken over REST, and what the new token may then do.

let t: TestApp;
let adminToken: string;
let userToken: string;

const create = (token: string | undefined, body: unknown, contentType = 'application/json') =>
  fetch(`${t.url}/api/v1/tokens`, {
    method: 'POST',
    headers: { 'content-type': contentType, ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });

const tokenCount = async () =>
  Number(
    (await sql<{ n: string }>`SELECT count(*) AS n FROM personal_access_tokens`.execute(t.database.handle.db)).rows[0]!
      .n,
  );

const WRITE = 'mutation { deleteProduct(id: "999999") { id } }';
const READ = '{ products(first: 1) { data { id } } }';

beforeAll(async () => {
  t = await startTestApp();
  const admin = await t.createUser({ isAdmin: true });
  const user = await t.createUser();
  adminToken = await t.login(admin.email, admin.password);
  userToken = await t.login(user.email, user.password);
});
afterAll(() => t.close());

describe('POST /api/v1/tokens', () => {
  it("creates a read-only integration token: it reads, and every write is FORBIDDEN, the admin's own included", async () => {
    const res = await create(adminToken, { name: ' storefront ', abilities: ['catalog:read'] });
    expect(res.status).toBe(201);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const body = await res.json();
    expect(body).toMatchObject({
      success: true,
      data: { name: 'storefront', abilities: ['catalog:read'], expires_at: null },
    });
    expect(body.data.token).toMatch(new RegExp(`^${body.data.id}\\|\\S{40,}$`));
    expect(body.data.created_at).toMatch(/^\d{4}-\d\d-\d\dT/);

    expect((await t.graphql(READ, { token: body.data.token })).status).toBe(200);
    const refused = await t.graphql(WRITE, { token: body.data.token });
    expect(refused.status).toBe(403);
    expect(refused.body.errors[0]).toMatchObject({
      message: 'This action is unauthorized.',
      extensions: { code: 'FORBIDDEN' },
    });
    // The admin's own login token still writes (the product is simply not there).
    expect((await t.graphql(WRITE, { token: adminToken })).body.errors[0].extensions.code).toBe('NOT_FOUND');
  });

  it("defaults to the caller's abilities, and the listing shows each token's", async () => {
    const res = await create(adminToken, { name: 'ci' });
    const { data } = await res.json();
    expect(data.abilities).toEqual(['*']);
    const list = await (
      await fetch(`${t.url}/api/v1/tokens`, { headers: { authorization: `Bearer ${adminToken}` } })
    ).json();
    expect(list.data.find((x: any) => x.id === data.id).abilities).toEqual(['*']);
    expect(list.data.find((x: any) => x.name === 'storefront').abilities).toEqual(['catalog:read']);
  });

  it('cannot grant more than the caller holds: 403, nothing stored', async () => {
    const narrow = (await (await create(adminToken, { name: 'narrow', abilities: ['catalog:read'] })).json()).data
      .token;
    const before = await tokenCount();
    for (const abilities of [['*'], ['catalog:write'], ['catalog:read', 'catalog:write']]) {
      const res = await create(narrow, { name: 'wider', abilities });
      expect(res.status).toBe(403);
      expect(await res.json()).toEqual({ success: false, message: 'This action is unauthorized.' });
    }
    expect(await tokenCount()).toBe(before);
  });

  it('lets a non-admin mint catalog:write, which still never writes: the role limits the scopes', async () => {
    const res = await create(userToken, { name: 'hopeful', abilities: ['catalog:write', 'catalog:read'] });
    expect(res.status).toBe(201);
    const { data } = await res.json();
    expect((await t.graphql(WRITE, { token: data.token })).status).toBe(403);
  });

  it('never outlives the token that created it', async () => {
    const soon = new Date(Date.now() + 60_000);
    const parent = (await (await create(adminToken, { name: 'parent', expires_at: soon.toISOString() })).json()).data;
    expect(parent.expires_at).toBe(soon.toISOString());
    const later = new Date(Date.now() + 3_600_000).toISOString();
    const child = (await (await create(parent.token, { name: 'child', expires_at: later })).json()).data;
    expect(child.expires_at).toBe(soon.toISOString());
    const unset = (await (await create(parent.token, { name: 'child2' })).json()).data;
    expect(unset.expires_at).toBe(soon.toISOString());
  });

  it('refuses bad input with 422 and the field messages, storing nothing', async () => {
    const before = await tokenCount();
    const cases: Array<[unknown, Record<string, string[]>]> = [
      [{}, { name: ['The name field is required.'] }],
      [{ name: '   ' }, { name: ['The name field is required.'] }],
      [{ name: 'x'.repeat(256) }, { name: ['The name field must not be greater than 255 characters.'] }],
      [
        { name: 'x', abilities: ['catalog:delete'] },
        {
          abilities: [
            'Each ability must be one of: *, tokens:manage, catalog:read, catalog:write, configurations:write, graphql:any.',
          ],
        },
      ],
      [{ name: 'x', abilities: 'catalog:read' }, { abilities: ['The abilities field must be a list of strings.'] }],
      [
        { name: 'x', abilities: Array(100).fill('catalog:read') },
        { abilities: ['The abilities field has too many items.'] },
      ],
      [
        { name: 'x', expires_at: '2001-01-01T00:00:00Z' },
        { expires_at: ['The expires at field must be a date after now.'] },
      ],
      [
        { name: 'x', expires_at: 'tomorrow' },
        { expires_at: ['The expires at field must be a date and time (ISO 8601).'] },
      ],
    ];
    for (const [body, errors] of cases) {
      const res = await create(adminToken, body);
      expect(res.status, JSON.stringify(body).slice(0, 80)).toBe(422);
      expect((await res.json()).errors).toEqual(errors);
    }
    expect((await create(adminToken, 'name=x', 'application/x-www-form-urlencoded')).status).toBe(415);
    expect((await create(adminToken, 'x'.repeat(20_000))).status).toBe(413);
    expect((await create(undefined, { name: 'x' })).status).toBe(401);
    expect(await tokenCount()).toBe(before);
  });
});

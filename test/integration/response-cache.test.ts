import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedCatalog } from '../../db/seeds/catalog.ts';
import { startTestApp, UNCACHED, type TestApp } from '../support/app.ts';
import { mutate } from '../support/catalog-writes.ts';

// The response cache as callers see it: shared answers, never a stale or someone else's refusal,
// and bounded. Works on both back ends: a write from outside the service is notified by the
// database itself, on PGlite as on PostgreSQL.

const METRICS_TOKEN = 'metrics-token-for-tests-0123456789';
const PRODUCT =
  'query ($id: ID!) { product(id: $id) { id name steps { id name components { id customisations { id price } } } } }';
const PAGE = '{ products(first: 5) { data { id name } paginatorInfo { total } } }';

async function metric(t: TestApp, name: string): Promise<number> {
  const res = await fetch(`${t.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
  const line = (await res.text()).split('\n').find((l) => l.startsWith(`${name} `));
  return line ? Number(line.split(' ')[1]) : NaN;
}

/** Asks until the answer satisfies `ok`, for at most a second: how long a notification may take. */
async function eventually(ask: () => Promise<any>, ok: (body: any) => boolean): Promise<any> {
  const deadline = Date.now() + 1_000;
  for (;;) {
    const body = await ask();
    if (ok(body) || Date.now() > deadline) return body;
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('the response cache', () => {
  let t: TestApp;
  let admin: string;
  let reader: string;
  let productId: string;

  beforeAll(async () => {
    t = await startTestApp({ env: { METRICS_TOKEN } });
    await seedCatalog(t.database.handle.db, { products: 8, seed: 5 });
    const a = await t.createUser({ isAdmin: true });
    const u = await t.createUser();
    admin = await t.login(a.email, a.password);
    reader = await t.login(u.email, u.password);
    productId = (await t.graphql(PAGE, { token: reader })).body.data.products.data[0].id;
  });
  afterAll(() => t?.close());

  it('answers a second caller with the same scopes from the cache: one statement, the token lookup', async () => {
    const other = await t.createUser();
    const otherToken = await t.login(other.email, other.password);
    const first = await t.graphql(PRODUCT, { token: reader, variables: { id: productId } });
    expect(first.status).toBe(200);
    const hits = await metric(t, 'graphql_response_cache_hits_total');
    t.database.queries.reset();
    const second = await t.graphql(PRODUCT, { token: otherToken, variables: { id: productId } });
    expect(second.body).toEqual(first.body);
    // The plugin's validators travel as headers on a hit too, never in the body.
    expect(second.headers.get('etag')).toBeTruthy();
    expect(second.headers.get('etag')).toBe(first.headers.get('etag'));
    expect(second.headers.get('last-modified')).toBe(first.headers.get('last-modified'));
    expect(t.database.queries.statements.filter((s) => !/personal_access_tokens/.test(s))).toEqual([]);
    expect(await metric(t, 'graphql_response_cache_hits_total')).toBe(hits + 1);
    expect(await metric(t, 'graphql_response_cache_entries')).toBeGreaterThan(0);
    expect(await metric(t, 'graphql_response_cache_bytes')).toBeGreaterThan(100);
  });

  it('still authenticates and checks abilities before any cached answer', async () => {
    await t.graphql(PAGE, { token: reader });
    expect((await t.graphql(PAGE)).status).toBe(401);
    expect((await t.graphql(PAGE, { token: `${reader}x` })).status).toBe(401);
    const u = await t.createUser();
    const narrow = await t.login(u.email, u.password);
    await sql`UPDATE personal_access_tokens SET abilities = '[]'::jsonb WHERE id = ${narrow.split('|')[0]}`.execute(
      t.database.handle.db,
    );
    for (let i = 0; i < 2; i++) {
      const refused = await t.graphql(PAGE, { token: narrow });
      expect(refused.body.errors[0].extensions.code).toBe('FORBIDDEN');
      expect(refused.body.data ?? null).toBeNull();
    }
    // The refusal was not kept for the reader either.
    expect((await t.graphql(PAGE, { token: reader })).body.data.products.data).toHaveLength(5);
  });

  it('a writer reads its own write at once; pages and totals move with it', async () => {
    const before = await t.graphql(PAGE, { token: reader });
    await t.graphql(PRODUCT, { token: reader, variables: { id: productId } });
    await mutate(
      t,
      admin,
      'mutation ($id: ID!) { updateProduct(id: $id, input: { name: "Renamed by a writer" }) { id } }',
      { id: productId },
    );
    const after = await t.graphql(PRODUCT, { token: admin, variables: { id: productId } });
    expect(after.body.data.product.name).toBe('Renamed by a writer');
    await mutate(t, admin, 'mutation ($i: CreateProductInput!) { createProduct(input: $i) { id } }', {
      i: { name: 'Cache newcomer', sku: 'CACHE-NEW-1', steps: [] },
    });
    const page = await t.graphql(PAGE, { token: reader });
    expect(page.body.data.products.paginatorInfo.total).toBe(before.body.data.products.paginatorInfo.total + 1);
  });

  it('a write made outside the service (SQL) reaches the cache through the database notification', async () => {
    const ask = () => t.graphql(PRODUCT, { token: reader, variables: { id: productId } }).then((r) => r.body);
    const cached = await ask();
    await sql`UPDATE customisations SET price = 123.45 WHERE component_id IN (
      SELECT c.id FROM components c JOIN steps s ON s.id = c.step_id WHERE s.product_id = ${productId})`.execute(
      t.database.handle.db,
    );
    const fresh = await eventually(ask, (b) => JSON.stringify(b) !== JSON.stringify(cached));
    const prices = fresh.data.product.steps.flatMap((s: any) =>
      s.components.flatMap((c: any) => c.customisations.map((x: any) => x.price)),
    );
    expect(prices.length).toBeGreaterThan(0);
    expect(new Set(prices)).toEqual(new Set([123.45]));

    const total = (await t.graphql(PAGE, { token: reader })).body.data.products.paginatorInfo.total;
    await sql`DELETE FROM products WHERE id = (SELECT max(id) FROM products)`.execute(t.database.handle.db);
    const page = await eventually(
      () => t.graphql(PAGE, { token: reader }).then((r) => r.body),
      (b) => b.data.products.paginatorInfo.total === total - 1,
    );
    expect(page.data.products.paginatorInfo.total).toBe(total - 1);
  });

  it('does not keep answers with errors, introspection or mutations', async () => {
    t.database.queries.reset();
    const missing = await t.graphql('{ product(id: "999999") { id } }', { token: reader });
    expect(missing.body.data.product).toBeNull();
    const schema = await t.graphql('{ __schema { queryType { name } } }', { token: reader });
    expect(schema.body.data.__schema.queryType.name).toBe('Query');
    const entries = await metric(t, 'graphql_response_cache_entries');
    await t.graphql('{ __schema { queryType { name } } }', { token: reader });
    expect(await metric(t, 'graphql_response_cache_entries')).toBe(entries);
  });
});

describe('the response cache bounds', () => {
  /** A fresh app with `env`, `products` seeded, and a reader's token. */
  async function withApp(
    env: Record<string, string>,
    products: number,
    run: (t: TestApp, token: string) => Promise<void>,
  ) {
    const t = await startTestApp({ env: { METRICS_TOKEN, ...env } });
    try {
      await seedCatalog(t.database.handle.db, { products, seed: products });
      const u = await t.createUser();
      await run(t, await t.login(u.email, u.password));
    } finally {
      await t.close();
    }
  }

  // Once full, an answer is kept only when asked for a second time (the doorkeeper below), so each is asked twice.
  it('holds at most RESPONSE_CACHE_MAX_ENTRIES answers, evicting the least recently used', () =>
    withApp({ RESPONSE_CACHE_MAX_ENTRIES: '2' }, 4, async (t, token) => {
      const ids = (await t.graphql(PAGE, { token })).body.data.products.data.map((p: { id: string }) => p.id);
      for (const id of ids) for (let i = 0; i < 2; i++) await t.graphql(PRODUCT, { token, variables: { id } });
      expect(await metric(t, 'graphql_response_cache_entries')).toBe(2);
      // PAGE and the first product filled the free room; each later product, asked again, evicted one.
      expect(await metric(t, 'graphql_response_cache_evictions_total')).toBe(ids.length - 1);
      t.database.queries.reset();
      await t.graphql(PRODUCT, { token, variables: { id: ids.at(-1) } });
      expect(t.database.queries.statements.filter((s) => !/personal_access_tokens/.test(s))).toEqual([]);
    }));

  it('a full cache admits only answers asked for twice: a flood of unique queries leaves the popular ones', () =>
    withApp({ RESPONSE_CACHE_MAX_ENTRIES: '6' }, 4, async (t, token) => {
      const ids = (await t.graphql(PAGE, { token })).body.data.products.data.map((p: { id: string }) => p.id);
      const popular = ids.map((id: string) => () => t.graphql(PRODUCT, { token, variables: { id } }));
      for (const ask of popular) for (let i = 0; i < 2; i++) await ask();
      const flood = 'query ($n: Int!) { products(first: $n) { data { id } } }';
      for (let n = 1; n <= 60; n++) expect((await t.graphql(flood, { token, variables: { n } })).status).toBe(200);
      expect(await metric(t, 'graphql_response_cache_admissions_refused_total')).toBeGreaterThanOrEqual(59);
      const hits = await metric(t, 'graphql_response_cache_hits_total');
      t.database.queries.reset();
      for (const ask of popular) expect((await ask()).status).toBe(200);
      expect(t.database.queries.statements.filter((s) => !/personal_access_tokens/.test(s))).toEqual([]);
      expect(await metric(t, 'graphql_response_cache_hits_total')).toBe(hits + popular.length);
      // A query that keeps coming back still gets in, evicting the least recently used.
      for (let i = 0; i < 2; i++) await t.graphql(flood, { token, variables: { n: 7 } });
      t.database.queries.reset();
      await t.graphql(flood, { token, variables: { n: 7 } });
      expect(t.database.queries.statements.filter((s) => !/personal_access_tokens/.test(s))).toEqual([]);
    }));

  it('never keeps an answer larger than RESPONSE_CACHE_MAX_BYTES', () =>
    withApp({ RESPONSE_CACHE_MAX_BYTES: '1024' }, 3, async (t, token) => {
      const big =
        '{ products(first: 3) { data { id name steps { id name components { id name customisations { id name price } } } } } }';
      const first = await t.graphql(big, { token });
      expect(JSON.stringify(first.body).length).toBeGreaterThan(1024);
      t.database.queries.reset();
      expect((await t.graphql(big, { token })).body).toEqual(first.body);
      expect(t.database.queries.count).toBeGreaterThan(2);
      expect(await metric(t, 'graphql_response_cache_bytes')).toBeLessThanOrEqual(1024);
    }));

  it('RESPONSE_CACHE_MAX_ENTRIES=0 turns it off: every request executes', () =>
    withApp(UNCACHED, 2, async (t, token) => {
      await t.graphql(PAGE, { token });
      t.database.queries.reset();
      await t.graphql(PAGE, { token });
      expect(t.database.queries.count).toBeGreaterThan(1);
      expect(await metric(t, 'graphql_response_cache_hits_total')).toBeNaN();
      expect(t.app.changes).toBeUndefined();
    }));
});

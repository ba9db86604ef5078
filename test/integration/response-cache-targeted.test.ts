import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedCatalog } from '../../db/seeds/catalog.ts';
import { startTestApp, type TestApp } from '../support/app.ts';
import { mutate } from '../support/catalog-writes.ts';

// A write drops the cached answers that read what it changed, and only those: an editor at work
// leaves the rest of the catalogue served from the cache. Identical misses at the same time execute
// once. On both back ends; two processes on one PostgreSQL database are response-cache-instances'.

const METRICS_TOKEN = 'targeted-metrics-token-0123456789';
const PRODUCT =
  'query Product($id: ID!) { product(id: $id) { id name steps { components { customisations { id price } } } } }';
const CONFIGURE =
  'query Configure($id: ID!, $c: ID!) { configure(productId: $id, selections: [{ customisationId: $c }]) { valid price { total { amount } } } }';
const FIRST_PAGE = '{ products(first: 2) { data { id name } paginatorInfo { total lastPage } } }';
const BY_UPDATED = '{ products(first: 2, orderBy: [{ column: UPDATED_AT, order: DESC }]) { data { id } } }';
const BY_SKU = 'query BySku($sku: String!) { productBySku(sku: $sku) { id name } }';
const UPDATE_PRICE =
  'mutation Price($id: ID!, $price: Float!) { updateCustomisation(id: $id, input: { price: $price }) { id price } }';

interface Ask {
  query: string;
  variables?: Record<string, unknown>;
}

describe('the response cache drops only what a write changed', () => {
  let t: TestApp;
  let admin: string;
  let reader: string;
  let first: { id: string; sku: string; customisation: string };
  let last: { id: string; customisation: string };

  /** The answer and the catalogue statements it cost (token lookups aside): none when served from the cache. */
  const ask = async ({ query, variables }: Ask) => {
    t.database.queries.reset();
    const res = await t.graphql(query, { token: reader, variables });
    expect(res.body.errors, JSON.stringify(res.body.errors)).toBeUndefined();
    const statements = t.database.queries.statements.filter((s) => !/personal_access_tokens/.test(s)).length;
    return { data: res.body.data, statements };
  };
  const metric = async (name: string) => {
    const res = await fetch(`${t.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
    const line = (await res.text()).split('\n').find((l) => l.startsWith(`${name} `));
    return line ? Number(line.split(' ')[1]) : NaN;
  };
  /** Asked until one answer is served from the cache (the echo of an earlier write may drop the first kept). */
  const warm = async (request: Ask) => {
    for (let attempt = 0; attempt < 20; attempt++) {
      await ask(request);
      if ((await ask(request)).statements === 0) return;
    }
    throw new Error(`never served from the cache: ${request.query}`);
  };
  const firstCustomisation = async (id: string) =>
    (await ask({ query: PRODUCT, variables: { id } })).data.product.steps[0].components[0].customisations[0]
      .id as string;

  beforeAll(async () => {
    t = await startTestApp({ env: { METRICS_TOKEN } });
    await seedCatalog(t.database.handle.db, { products: 6, seed: 8 });
    const a = await t.createUser({ isAdmin: true });
    const u = await t.createUser();
    admin = await t.login(a.email, a.password);
    reader = await t.login(u.email, u.password);
    const ids = (await t.graphql('{ products(first: 10) { data { id sku } } }', { token: reader })).body.data.products
      .data as { id: string; sku: string }[];
    first = { ...ids[0]!, customisation: await firstCustomisation(ids[0]!.id) };
    last = { id: ids.at(-1)!.id, customisation: await firstCustomisation(ids.at(-1)!.id) };
  });
  afterAll(() => t?.close());

  it('a price change drops its product, its configure answers and lists sorted by updatedAt; the rest stay', async () => {
    const untouched: Ask[] = [
      { query: PRODUCT, variables: { id: first.id } },
      { query: CONFIGURE, variables: { id: first.id, c: first.customisation } },
      // The first page holds neither the changed product nor a count that could move.
      { query: FIRST_PAGE },
      { query: BY_SKU, variables: { sku: first.sku } },
    ];
    const touched: Ask[] = [
      { query: PRODUCT, variables: { id: last.id } },
      { query: CONFIGURE, variables: { id: last.id, c: last.customisation } },
      { query: BY_UPDATED },
    ];
    for (let round = 1; round <= 3; round++) {
      for (const request of [...untouched, ...touched]) await warm(request);
      const before = await Promise.all(untouched.map(ask));
      const dropped = await metric('graphql_response_cache_dropped_total');
      const price = 100 + round;
      await mutate(t, admin, UPDATE_PRICE, { id: last.customisation, price });

      // The writer's next read is fresh at once: the mutation answered after its notification came back.
      const product = await ask(touched[0]!);
      expect(product.statements).toBeGreaterThan(0);
      expect(product.data.product.steps[0].components[0].customisations[0].price).toBe(price);
      const configured = await ask(touched[1]!);
      expect(configured.statements).toBeGreaterThan(0);
      expect(configured.data.configure.price.total.amount).toMatch(new RegExp(`^${price}\\.00$|${price}`));
      const byUpdated = await ask(touched[2]!);
      expect(byUpdated.statements).toBeGreaterThan(0);
      expect(byUpdated.data.products.data[0].id).toBe(last.id);

      for (const [i, request] of untouched.entries()) {
        const after = await ask(request);
        expect(after.statements, request.query).toBe(0);
        expect(after.data).toEqual(before[i]!.data);
      }
      expect(await metric('graphql_response_cache_dropped_total')).toBeGreaterThanOrEqual(dropped + 3);
    }
  });

  it('an insert moves every list and total, and finds what was asked for before it existed', async () => {
    const sku = `NEW-${Date.now()}`;
    await warm({ query: FIRST_PAGE });
    await warm({ query: PRODUCT, variables: { id: first.id } });
    await warm({ query: BY_SKU, variables: { sku } });
    const total = (await ask({ query: FIRST_PAGE })).data.products.paginatorInfo.total as number;
    const created = await mutate(
      t,
      admin,
      'mutation New($sku: String!) { createProduct(input: { name: "Brand new", sku: $sku }) { id } }',
      { sku },
    );
    expect((await ask({ query: BY_SKU, variables: { sku } })).data.productBySku).toEqual({
      id: created.createProduct.id,
      name: 'Brand new',
    });
    const page = await ask({ query: FIRST_PAGE });
    expect(page.statements).toBeGreaterThan(0);
    expect(page.data.products.paginatorInfo.total).toBe(total + 1);
    expect((await ask({ query: PRODUCT, variables: { id: first.id } })).statements).toBe(0);

    // And the id asked for before the product existed.
    const next = String(Number(created.createProduct.id) + 1);
    await warm({ query: PRODUCT, variables: { id: next } });
    expect((await ask({ query: PRODUCT, variables: { id: next } })).data.product).toBeNull();
    const again = await mutate(
      t,
      admin,
      'mutation New($sku: String!) { createProduct(input: { name: "Next one", sku: $sku }) { id } }',
      { sku: `${sku}-2` },
    );
    expect(again.createProduct.id).toBe(next);
    expect((await ask({ query: PRODUCT, variables: { id: next } })).data.product.name).toBe('Next one');
  });

  it('one statement touching more than 400 products empties the cache (its notification could not name them)', async () => {
    await warm({ query: PRODUCT, variables: { id: first.id } });
    const emptied = await metric('graphql_response_cache_invalidations_total');
    await sql`
      INSERT INTO products (name, sku) SELECT 'Bulk ' || n, 'BULK-' || n FROM generate_series(1, 401) n
    `.execute(t.database.handle.db);
    // Not a product this statement touched, yet executed again once the notification is in.
    const deadline = Date.now() + 1_000;
    let again = await ask({ query: PRODUCT, variables: { id: first.id } });
    while (again.statements === 0 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 10));
      again = await ask({ query: PRODUCT, variables: { id: first.id } });
    }
    expect(again.statements).toBeGreaterThan(0);
    expect(await metric('graphql_response_cache_invalidations_total')).toBe(emptied + 1);
    await sql`DELETE FROM products WHERE sku LIKE 'BULK-%'`.execute(t.database.handle.db);
  });

  it('identical queries at the same time execute once, and each gets the answer', async () => {
    // One execution's statements, on a product of its own.
    await mutate(t, admin, UPDATE_PRICE, { id: last.customisation, price: 7 });
    const alone = (await ask({ query: PRODUCT, variables: { id: last.id } })).statements;
    expect(alone).toBeGreaterThan(0);

    await mutate(t, admin, UPDATE_PRICE, { id: first.customisation, price: 8 });
    const [hits, coalesced] = await Promise.all(
      ['graphql_response_cache_hits_total', 'graphql_response_cache_coalesced_total'].map(metric),
    );
    t.database.queries.reset();
    const answers = await Promise.all(
      Array.from({ length: 8 }, () => t.graphql(PRODUCT, { token: reader, variables: { id: first.id } })),
    );
    const statements = t.database.queries.statements.filter((s) => !/personal_access_tokens/.test(s)).length;
    for (const answer of answers) {
      expect(answer.status).toBe(200);
      expect(answer.body).toEqual(answers[0]!.body);
    }
    expect(answers[0]!.body.data.product.steps[0].components[0].customisations[0].price).toBe(8);
    // One executed; the seven others waited for its answer (or, arriving after it, found it stored).
    expect(statements).toBe(alone);
    expect(await metric('graphql_response_cache_hits_total')).toBe(hits! + 7);
    // On PostgreSQL the seven arrive while the first waits for its rows (the embedded database answers
    // before they are read from their sockets).
    if (t.database.url) expect(await metric('graphql_response_cache_coalesced_total')).toBeGreaterThan(coalesced!);
  });
});

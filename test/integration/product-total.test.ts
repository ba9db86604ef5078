import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedCatalog } from '../../db/seeds/catalog.ts';
import { startTestApp, UNCACHED, type TestApp } from '../support/app.ts';

// products' unfiltered total is counted once and then kept from the change feed: it moves only with
// inserts and deletes, which the feed names. Pages that ask for it then cost their page statement
// alone, at any catalogue size. The response cache is off here, so every page is executed.

const PAGE =
  'query Page($after: String) { products(first: 3, after: $after) { data { id } paginatorInfo { total lastPage endCursor } } }';
const POSITIONED =
  'query Page($after: String) { products(first: 3, after: $after) { paginatorInfo { currentPage total } } }';

describe('the unfiltered total', () => {
  let t: TestApp;
  let reader: string;

  const page = async (query: string, after?: string | null) => {
    t.database.queries.reset();
    const res = await t.graphql(query, { token: reader, variables: { after: after ?? null } });
    expect(res.body.errors, JSON.stringify(res.body.errors)).toBeUndefined();
    const statements = t.database.queries.statements.filter((s) => !/personal_access_tokens/.test(s));
    return {
      info: res.body.data.products.paginatorInfo,
      statements: statements.length,
      counts: statements.filter((s) => /count\(\*\) AS total/i.test(s)).length,
    };
  };
  /** Until a count is kept again (the notification of an earlier write may still be on its way). */
  const settled = async () => {
    for (let i = 0; i < 50; i++) {
      await page(PAGE);
      if ((await page(PAGE)).counts === 0) return;
      await new Promise((r) => setTimeout(r, 20));
    }
    throw new Error('the total was never kept');
  };

  beforeAll(async () => {
    // The token cache keeps the change feed listening; the response cache stays off.
    t = await startTestApp({ env: { RESPONSE_CACHE_MAX_ENTRIES: UNCACHED.RESPONSE_CACHE_MAX_ENTRIES } });
    await seedCatalog(t.database.handle.db, {
      products: 10,
      seed: 4,
      shape: { steps: 1, components: 1, customisations: 1 },
    });
    const u = await t.createUser();
    reader = await t.login(u.email, u.password);
  });
  afterAll(() => t?.close());

  it('is counted once, then every page asking for it costs its page statement alone, exact after inserts and deletes', async () => {
    await settled();
    let after: string | null = null;
    for (let i = 0; i < 4; i++) {
      const walked = await page(PAGE, after);
      expect(walked).toMatchObject({ statements: 1, counts: 0 });
      expect(walked.info).toMatchObject({ total: 10, lastPage: 4 });
      after = walked.info.endCursor;
    }

    const db = t.database.handle.db;
    await sql`INSERT INTO products (name, sku) VALUES ('Added', 'TOTAL-1'), ('Added too', 'TOTAL-2')`.execute(db);
    await settled();
    expect((await page(PAGE)).info).toMatchObject({ total: 12, lastPage: 4 });
    await sql`DELETE FROM products WHERE sku LIKE 'TOTAL-%'`.execute(db);
    await settled();
    expect((await page(PAGE)).info).toMatchObject({ total: 10, lastPage: 4 });
    // A price change moves no total: it stays kept.
    await sql`UPDATE customisations SET price = price + 1`.execute(db);
    await new Promise((r) => setTimeout(r, 100));
    expect(await page(PAGE)).toMatchObject({ statements: 1, counts: 0 });
  });

  it('currentPage deep in a walk counts the products before the page (an index range), not the total', async () => {
    await settled();
    const first = await page(PAGE);
    const deep = await page(POSITIONED, first.info.endCursor);
    expect(deep).toMatchObject({ statements: 1, counts: 0 });
    expect(deep.info).toEqual({ currentPage: 2, total: 10 });
  });
});

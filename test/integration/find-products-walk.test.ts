import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertProductTrees } from '../../src/modules/catalog/tools.ts';
import { startTestApp, type TestApp } from '../support/app.ts';
import { adminAndUserTokens, mutate } from '../support/catalog-writes.ts';
import { ORDER_COLUMNS, type OrderColumn, type SortableRow } from '../support/find-products.ts';

// docs/finding-products.md, "Paging": a walk sees every product whose sort key did not change during the walk
// exactly once, whatever is inserted or deleted meanwhile. Each of the 12 walks (6 columns × 2
// directions) starts from the same kind of catalogue, full of colliding sort keys, and between every
// two page requests a writer inserts products at, behind and ahead of the cursor and deletes new and
// original ones. The response cache is on (the default configuration): pages are read as clients read them.

type Column = OrderColumn;
type Direction = 'ASC' | 'DESC';
type Row = SortableRow;

const FIRST = 7;
const FIELDS = 'id name sku basePrice createdAt updatedAt';
const PAGE = `query Walk($first: Int!, $after: String, $search: String, $filter: ProductFilter, $orderBy: [ProductOrderBy!]) {
  products(first: $first, after: $after, search: $search, filter: $filter, orderBy: $orderBy) {
    data { ${FIELDS} }
    paginatorInfo { count currentPage firstItem lastItem lastPage perPage total hasMorePages endCursor }
  }
}`;
const CREATE = `mutation ($input: CreateProductInput!) { createProduct(input: $input) { ${FIELDS} } }`;
const UPDATE = `mutation ($id: ID!, $input: UpdateProductInput!) { updateProduct(id: $id, input: $input) { id } }`;
const DELETE = `mutation ($id: ID!) { deleteProduct(id: $id) { id } }`;

// Names equal, or equal but for case (ASCII, and non-ASCII, which lower() under "C" leaves alone).
const NAMES = ['apple', 'Apple', 'APPLE', 'apple pie', 'Apple Pie', 'Banana', 'banana', 'Äpfel', 'äpfel', 'a', 'A'];
const MORE_NAMES = [...NAMES, 'zebra', 'Zebra', '_under', 'b'];
const PRICES = [0, 0, 1.5, 9.99, 10, 100, 1234567.89, 0.01];

/** Deterministic, so a failing walk can be replayed. */
function random(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let x = a;
    x = Math.imul(x ^ (x >>> 15), x | 1);
    x ^= x + Math.imul(x ^ (x >>> 7), x | 61);
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
  const pick = <T>(items: readonly T[]): T | undefined =>
    items.length === 0 ? undefined : items[Math.floor(next() * items.length)];
  return { next, pick };
}

// The documented order, independently: lower() under "C" folds ASCII only, "C" compares UTF-8 bytes.
const asciiLower = (s: string) => s.replace(/[A-Z]/g, (c) => c.toLowerCase());
const bytewise = (a: string, b: string) => Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
const sign = (n: number) => (n < 0 ? -1 : n > 0 ? 1 : 0);
const byId = (a: Row, b: Row) => sign(Number(a.id) - Number(b.id));

function keyCompare(column: Column, a: Row, b: Row): number {
  switch (column) {
    case 'ID':
      return byId(a, b);
    case 'NAME':
    case 'SKU': {
      const f = column === 'NAME' ? 'name' : 'sku';
      return bytewise(asciiLower(a[f]), asciiLower(b[f])) || bytewise(a[f], b[f]);
    }
    case 'BASE_PRICE':
      return sign(a.basePrice - b.basePrice);
    case 'CREATED_AT':
      return sign(Date.parse(a.createdAt) - Date.parse(b.createdAt));
    case 'UPDATED_AT':
      return sign(Date.parse(a.updatedAt) - Date.parse(b.updatedAt));
  }
}

interface Clause {
  column: Column;
  order: Direction;
}

/** Negative when `a` comes first: each clause in its direction (ID ends the order), then id ascending. */
const orderOf = (clauses: Clause[]) => (a: Row, b: Row) => {
  for (const { column, order } of clauses) {
    const k = order === 'DESC' ? -keyCompare(column, a, b) : keyCompare(column, a, b);
    if (k !== 0 || column === 'ID') return k;
  }
  return byId(a, b);
};
const named = (clauses: Clause[]) => clauses.map((c) => `${c.column} ${c.order}`).join(', ');

let t: TestApp;
let admin: string;
let reader: string;
const newTotals = () => ({ walks: 0, pages: 0, inserted: 0, deleted: 0, duplicates: 0, missed: 0 });
/** Summed per kind of walk, for the closing lines. */
const totals = { 'one column': newTotals(), 'two columns': newTotals(), all: newTotals() };

beforeAll(async () => {
  t = await startTestApp();
  ({ admin, user: reader } = await adminAndUserTokens(t));
});
afterAll(async () => {
  for (const [kind, sum] of Object.entries(totals)) {
    if (sum.walks === 0) continue;
    console.log(
      `walk total, ${kind} (${t.database.url ? 'PostgreSQL' : 'embedded'}): walks ${sum.walks}, pages ${sum.pages}, ` +
        `inserted ${sum.inserted}, deleted ${sum.deleted}, duplicates ${sum.duplicates}, missed ${sum.missed}`,
    );
  }
  await t?.close();
});

async function page(variables: Record<string, unknown>) {
  const { status, body } = await t.graphql(PAGE, { token: reader, variables: { first: FIRST, ...variables } });
  expect(body.errors, JSON.stringify(body.errors)).toBeUndefined();
  expect(status).toBe(200);
  return body.data.products as { data: Row[]; paginatorInfo: Record<string, any> };
}

/** Every product now, read through the default order (a reader's view, not the writer's bookkeeping). */
async function everything(): Promise<Row[]> {
  const rows: Row[] = [];
  let after: string | null = null;
  for (;;) {
    const res = await t.graphql(
      `query ($after: String) { products(first: 100, after: $after) { data { ${FIELDS} } paginatorInfo { hasMorePages endCursor } } }`,
      { token: reader, variables: { after } },
    );
    expect(res.body.errors).toBeUndefined();
    rows.push(...res.body.data.products.data);
    if (!res.body.data.products.paginatorInfo.hasMorePages) return rows;
    after = res.body.data.products.paginatorInfo.endCursor;
  }
}

/**
 * About 150 products with colliding keys: two bulk inserts (each one created_at for all its rows),
 * base prices from a short list set by one statement (one updated_at for the rows it changed), and
 * some created and updated through the API, each at its own instant.
 */
async function seedCatalogue(rng: ReturnType<typeof random>): Promise<Row[]> {
  const db = t.database.handle.db;
  await sql`DELETE FROM products`.execute(db);
  const cases = ['kit-', 'KIT-', 'Kit-'];
  for (const batch of [0, 1]) {
    await insertProductTrees(
      db,
      Array.from({ length: 70 }, (_, j) => {
        const i = batch * 70 + j;
        return { name: rng.pick(NAMES)!, sku: `${cases[i % 3]}${Math.floor(i / 3)}`, steps: [] };
      }),
    );
  }
  await sql`UPDATE products SET base_price = (${sql.raw(`ARRAY[${PRICES.join(',')}]`)}::numeric[])[1 + id % ${PRICES.length}]`.execute(
    db,
  );
  // SQL writes before an API write: the mutation empties this instance's response cache after them.
  for (let i = 0; i < 10; i++) {
    await mutate(t, admin, CREATE, {
      input: { name: rng.pick(NAMES), sku: `${cases[i % 3]}${100 + Math.floor(i / 3)}`, basePrice: rng.pick(PRICES) },
    });
  }
  const seeded = await everything();
  for (let i = 0; i < 10; i++) {
    await mutate(t, admin, UPDATE, { id: rng.pick(seeded)!.id, input: { basePrice: rng.pick(PRICES) } });
  }
  const rows = await everything();
  // The collisions the walks are about: equal keys, and NAME/SKU keys equal but for case.
  const repeats = (key: (r: Row) => string) => rows.length - new Set(rows.map(key)).size;
  expect(repeats((r) => r.name)).toBeGreaterThan(100);
  expect(repeats((r) => asciiLower(r.sku))).toBeGreaterThan(90);
  expect(new Set(rows.map((r) => r.name)).size).toBeGreaterThan(new Set(rows.map((r) => asciiLower(r.name))).size);
  expect(repeats((r) => String(r.basePrice))).toBeGreaterThan(100);
  expect(repeats((r) => r.createdAt)).toBeGreaterThan(100);
  expect(repeats((r) => r.updatedAt)).toBeGreaterThan(100);
  return rows;
}

interface WalkFigures {
  pages: number;
  inserted: number;
  deleted: number;
  duplicates: number;
  missed: number;
}

async function walk(clauses: Clause[], seed: number): Promise<WalkFigures> {
  const rng = random(seed);
  const db = t.database.handle.db;
  const order = orderOf(clauses);
  const sorts = (column: Column) => clauses.some((c) => c.column === column);
  const timeColumn = clauses.find((c) => c.column === 'CREATED_AT' || c.column === 'UPDATED_AT')?.column;
  const before = await seedCatalogue(rng);
  const originals = new Set(before.map((r) => r.id));
  const usedSkus = new Set(before.map((r) => r.sku));
  const created = new Set<string>();
  const deleted = new Set<string>();
  /** Products the writer changed in a way that moved them in this order: the walk promises nothing for them. */
  const moved = new Set<string>();
  let updated = 0;
  const seen: Row[] = [];
  const seenIds = new Set<string>();
  const problems: string[] = [];
  let inserted = 0;
  let fresh = 0;

  const freshSku = () => {
    let sku: string;
    do sku = `w${seed}-${++fresh}`;
    while (usedSkus.has(sku));
    usedSkus.add(sku);
    return sku;
  };
  /** A sku equal to `sku` but for case (the same first NAME/SKU key), unused; or a fresh one. */
  const caseVariant = (sku: string) => {
    for (let attempt = 0; attempt < 20; attempt++) {
      const variant = [...sku].map((c) => (rng.next() < 0.5 ? c.toLowerCase() : c.toUpperCase())).join('');
      if (!usedSkus.has(variant)) {
        usedSkus.add(variant);
        return variant;
      }
    }
    return freshSku();
  };

  /** A new product whose sort keys are `source`'s: at its position, ties broken by the new id. */
  async function insertLike(source: Row | undefined) {
    const product = {
      name: sorts('NAME') && source ? source.name : rng.pick(MORE_NAMES)!,
      sku: sorts('SKU') && source ? caseVariant(source.sku) : freshSku(),
      basePrice: sorts('BASE_PRICE') && source ? source.basePrice : rng.pick(PRICES)!,
    };
    const stamp =
      source &&
      (timeColumn === 'CREATED_AT' ? source.createdAt : timeColumn === 'UPDATED_AT' ? source.updatedAt : null);
    if (stamp) {
      // The API stamps a new product with the time of its write; to put one exactly at an older
      // instant, the write's stamp (migration 0016) is set by hand in SQL.
      const id = await db.transaction().execute(async (trx) => {
        await sql`SELECT set_config('catalog.write_stamp', ${stamp}, true)`.execute(trx);
        const { rows } = await sql<{ id: string; same: boolean }>`
          INSERT INTO products (name, sku, base_price) VALUES (${product.name}, ${product.sku}, ${product.basePrice})
          RETURNING id::text AS id, created_at = ${stamp}::timestamptz AND updated_at = created_at AS same`.execute(
          trx,
        );
        expect(rows[0]!.same).toBe(true);
        return rows[0]!.id;
      });
      created.add(id);
    } else {
      const { createProduct } = await mutate(t, admin, CREATE, { input: product });
      created.add(createProduct.id);
    }
    inserted++;
  }

  /** Changes a field the order does not sort by (UPDATED_AT still moves). */
  async function touch(row: Row | undefined) {
    if (!row) return;
    const input = !sorts('BASE_PRICE')
      ? { basePrice: row.basePrice === 42 ? 43 : 42 }
      : !sorts('NAME')
        ? { name: `${row.name} (renamed)` }
        : { sku: freshSku() };
    await mutate(t, admin, UPDATE, { id: row.id, input });
    if (sorts('UPDATED_AT')) moved.add(row.id);
    else updated++;
  }

  async function remove(row: Row | undefined) {
    if (!row || deleted.has(row.id)) return;
    await mutate(t, admin, DELETE, { id: row.id });
    deleted.add(row.id);
  }

  let after: string | null = null;
  let last: Row | null = null;
  let pages = 0;
  for (;;) {
    // What the page must be, from the catalogue as it is now: the next FIRST products after the cursor.
    const now = await everything();
    const ahead = now.filter((r) => last === null || order(r, last) > 0).sort(order);
    const skipped = now.length - ahead.length;
    const result = await page({ after, orderBy: clauses });
    pages++;
    const info = result.paginatorInfo;
    const ids = result.data.map((r) => r.id);
    const expected = ahead.slice(0, FIRST).map((r) => r.id);
    if (JSON.stringify(ids) !== JSON.stringify(expected)) {
      problems.push(`page ${pages}: got ${ids.join(',')}, the order says ${expected.join(',')}`);
    }
    const wantedInfo = {
      count: ids.length,
      total: now.length,
      currentPage: Math.floor(skipped / FIRST) + 1,
      firstItem: ids.length ? skipped + 1 : null,
      lastItem: ids.length ? skipped + ids.length : null,
      hasMorePages: ahead.length > FIRST,
    };
    const gotInfo = Object.fromEntries(Object.keys(wantedInfo).map((k) => [k, info[k]]));
    if (JSON.stringify(gotInfo) !== JSON.stringify(wantedInfo)) {
      problems.push(`page ${pages}: paginatorInfo ${JSON.stringify(gotInfo)}, expected ${JSON.stringify(wantedInfo)}`);
    }
    for (const row of result.data) {
      seen.push(row);
      seenIds.add(row.id);
    }
    if (!info.hasMorePages || pages > 400) break;
    after = info.endCursor;
    last = result.data.at(-1)!;

    // The writer, between this page and the next. SQL inserts go first: the API writes after them
    // empty the response cache, so no answer cached before an SQL write is served after it.
    const state = await everything();
    const behind = state.filter((r) => seenIds.has(r.id));
    const unseen = state.filter((r) => !seenIds.has(r.id));
    const sources = [last, rng.pick(behind), rng.pick(unseen)];
    const bySql = sources.filter((s) => timeColumn && s);
    for (const source of bySql) await insertLike(source);
    for (const source of sources) if (!bySql.includes(source)) await insertLike(source);
    // One more at "now", through the API: after everything ascending, before the cursor descending.
    await insertLike(undefined);
    await remove(rng.pick(state.filter((r) => created.has(r.id))));
    await remove(rng.pick((pages % 2 ? unseen : behind).filter((r) => originals.has(r.id))));
    if (pages % 3 === 0) await remove(rng.pick(unseen.filter((r) => originals.has(r.id))));
    // And one product changed, its sort key kept (but for UPDATED_AT), ahead of the cursor or behind it.
    await touch(rng.pick((pages % 2 ? behind : unseen).filter((r) => originals.has(r.id) && !deleted.has(r.id))));
  }

  const counts = new Map<string, number>();
  for (const row of seen) if (!moved.has(row.id)) counts.set(row.id, (counts.get(row.id) ?? 0) + 1);
  const duplicates = [...counts.values()].reduce((n, c) => n + (c - 1), 0);
  const mustSee = [...originals].filter((id) => !deleted.has(id) && !moved.has(id));
  const missed = mustSee.filter((id) => !counts.has(id)).length;
  const outOfOrder = seen.slice(1).filter((row, i) => order(seen[i]!, row) >= 0).length;

  const figures = { pages, inserted, deleted: deleted.size, duplicates, missed };
  console.log(
    `walk ${named(clauses)} (${t.database.url ? 'PostgreSQL' : 'embedded'}): pages ${pages}, inserted ${inserted}, ` +
      `deleted ${deleted.size} (${[...deleted].filter((id) => originals.has(id)).length} of ${originals.size} originals), ` +
      `updated ${updated} (key kept) + ${moved.size} (moved), seen ${seen.length}, duplicates ${duplicates}, missed ${missed}, out of order ${outOfOrder}`,
  );
  for (const sum of [totals[clauses.length === 1 ? 'one column' : 'two columns'], totals.all]) {
    sum.walks++;
    sum.pages += pages;
    sum.inserted += inserted;
    sum.deleted += deleted.size;
    sum.duplicates += duplicates;
    sum.missed += missed;
  }

  expect(duplicates).toBe(0);
  expect(missed).toBe(0);
  expect(outOfOrder).toBe(0);
  expect(problems).toEqual([]);
  // The walk did what it says: it wrote on both sides of the cursor and deleted originals.
  expect(inserted).toBeGreaterThan(50);
  expect([...deleted].filter((id) => originals.has(id)).length).toBeGreaterThan(10);
  return figures;
}

describe('products(orderBy): a walk while others write', () => {
  ORDER_COLUMNS.forEach((column, c) => {
    for (const order of ['ASC', 'DESC'] as const) {
      it(`a walk by ${column} ${order} sees every product whose sort key did not change during the walk exactly once while others are inserted and deleted`, async () => {
        await walk([{ column, order }], 1000 + c * 2 + (order === 'DESC' ? 1 : 0));
      }, 180_000);
    }
  });
  // Two clauses, in one direction and in mixed ones (the keyset is then a row comparison and a filter).
  const pairs: Clause[][] = [
    [
      { column: 'NAME', order: 'ASC' },
      { column: 'BASE_PRICE', order: 'DESC' },
    ],
    [
      { column: 'BASE_PRICE', order: 'DESC' },
      { column: 'SKU', order: 'DESC' },
    ],
    [
      { column: 'CREATED_AT', order: 'DESC' },
      { column: 'NAME', order: 'ASC' },
    ],
    [
      { column: 'UPDATED_AT', order: 'ASC' },
      { column: 'ID', order: 'DESC' },
    ],
  ];
  pairs.forEach((clauses, i) => {
    it(`a walk by ${named(clauses)} sees every product whose sort keys did not change exactly once while others are inserted and deleted`, async () => {
      await walk(clauses, 2000 + i);
    }, 180_000);
  });
});

describe('paginatorInfo under search and filter (no writes)', () => {
  let all: Row[];
  beforeAll(async () => {
    all = await seedCatalogue(random(7));
  }, 120_000);

  /** Walks the query to its end and checks every page's counters against the matches counted here. */
  async function countedWalk(variables: Record<string, unknown>, matches: Row[], column: Column, direction: Direction) {
    const expected = [...matches].sort(orderOf([{ column, order: direction }]));
    const lastPage = Math.max(1, Math.ceil(expected.length / FIRST));
    let after: string | null = null;
    const seen: string[] = [];
    for (let n = 1; ; n++) {
      const { data, paginatorInfo } = await page({ ...variables, after, orderBy: [{ column, order: direction }] });
      const slice = expected.slice((n - 1) * FIRST, n * FIRST);
      expect(data.map((r) => r.id)).toEqual(slice.map((r) => r.id));
      expect(paginatorInfo).toMatchObject({
        count: slice.length,
        total: expected.length,
        perPage: FIRST,
        currentPage: n,
        lastPage,
        firstItem: slice.length ? (n - 1) * FIRST + 1 : null,
        lastItem: slice.length ? (n - 1) * FIRST + slice.length : null,
        hasMorePages: n < lastPage,
      });
      seen.push(...data.map((r) => r.id));
      if (!paginatorInfo.hasMorePages) break;
      after = paginatorInfo.endCursor;
    }
    expect(seen).toEqual(expected.map((r) => r.id));
    return expected.length;
  }

  it('search: total counts the products whose name or sku contains the text, case-insensitively', async () => {
    const matches = all.filter((r) => asciiLower(r.name).includes('apple') || asciiLower(r.sku).includes('apple'));
    expect(matches.length).toBeGreaterThan(FIRST * 2);
    expect(matches.length).toBeLessThan(all.length);
    await countedWalk({ search: 'APPLE' }, matches, 'NAME', 'ASC');
    // The sku matches too: "kit-1" is in kit-1, kit-10…kit-19, KIT-100… (any case).
    const kit1 = all.filter((r) => asciiLower(r.sku).includes('kit-1'));
    await countedWalk({ search: 'Kit-1' }, kit1, 'SKU', 'DESC');
  });

  it('filter.skus: total counts the skus that exist, exactly and case-sensitively', async () => {
    const chosen = all.filter((_, i) => i % 7 === 0).map((r) => r.sku);
    // Absent, and equal but for case to skus that exist (the seed spells them kit-, KIT- and Kit- only).
    const asked = [...chosen, 'no-such-sku', 'kIT-0', 'kiT-1'];
    const matches = all.filter((r) => chosen.includes(r.sku));
    expect(matches.length).toBe(chosen.length);
    await countedWalk({ filter: { skus: asked } }, matches, 'BASE_PRICE', 'DESC');
  });

  it('search and filter.updatedAfter together', async () => {
    const instants = [...new Set(all.map((r) => r.updatedAt))].sort();
    const since = instants[Math.floor(instants.length / 2)]!;
    const matches = all.filter((r) => Date.parse(r.updatedAt) > Date.parse(since) && /a/i.test(r.name + r.sku));
    expect(matches.length).toBeGreaterThan(0);
    await countedWalk({ search: 'a', filter: { updatedAfter: since } }, matches, 'UPDATED_AT', 'ASC');
  });
});

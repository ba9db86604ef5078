import { crc32 } from 'node:zlib';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { insertProductTrees } from '../../src/modules/catalog/tools.ts';
import { startTestApp, UNCACHED, type TestApp } from '../support/app.ts';
import { ORDER_COLUMNS, type SortableRow } from '../support/find-products.ts';

// products(search, filter, orderBy) and productBySku through the front door, on a catalogue whose names,
// skus, prices and times make every order differ from id order, with ties, cases and LIKE's wildcards.

const NAMES = [
  'desk',
  'Desk',
  'DESK',
  'apple',
  'Zebra',
  'zebra',
  'banana',
  '100% wool',
  'snake_case',
  'back\\slash',
  'Ärger',
  'ärger',
  'chair',
  'Chair',
  'table',
  'lamp',
  'Lamp shade',
  'a',
  'b',
  'desk',
];
const PRICES = ['5.00', '1.50', '5.00', '0.29', '100.00', '3.00'];

type Row = SortableRow;

let t: TestApp;
let token: string;
let rows: Row[] = [];

const PAGE = `query ($first: Int!, $after: String, $search: String, $filter: ProductFilter, $orderBy: [ProductOrderBy!]) {
  products(first: $first, after: $after, search: $search, filter: $filter, orderBy: $orderBy) {
    data { id name sku basePrice createdAt updatedAt }
    paginatorInfo { count currentPage firstItem lastItem lastPage perPage total hasMorePages endCursor }
  }
}`;

beforeAll(async () => {
  t = await startTestApp({ env: UNCACHED });
  const db = t.database.handle.db;
  await insertProductTrees(
    db,
    NAMES.map((name, i) => ({
      name,
      sku: `${i % 2 ? 'sku' : 'SKU'}-${String((i * 7) % 20).padStart(2, '0')}`,
      steps: [],
    })),
  );
  // Prices and creation times with ties, in an order unlike the ids'.
  const { rows: ids } = await sql<{ id: string }>`SELECT id::text AS id FROM products ORDER BY id`.execute(db);
  for (const [i, { id }] of ids.entries()) {
    await sql`UPDATE products SET base_price = ${PRICES[i % PRICES.length]}::numeric,
      created_at = timestamptz '2026-01-01T00:00:00Z' + ${(i * 5) % 7} * interval '1 hour'
      WHERE id = ${id}::bigint`.execute(db);
  }
  const user = await t.createUser();
  token = await t.login(user.email, user.password);
  rows = (await t.graphql(PAGE, { token, variables: { first: 100 } })).body.data.products.data;
});
afterAll(() => t?.close());

async function page(variables: Record<string, unknown>) {
  const { status, body } = await t.graphql(PAGE, { token, variables });
  return { status, body, products: body.data?.products, errors: body.errors as any[] | undefined };
}

async function walk(variables: Record<string, unknown>, first = 3) {
  const seen: Row[] = [];
  const pages: any[] = [];
  let after: string | null = null;
  for (let i = 0; i < 100; i++) {
    const { products, errors } = await page({ ...variables, first, after });
    expect(errors).toBeUndefined();
    seen.push(...products.data);
    pages.push(products.paginatorInfo);
    if (!products.paginatorInfo.hasMorePages) break;
    after = products.paginatorInfo.endCursor;
  }
  return { seen, pages };
}

// "C" collation: lower() folds ASCII letters only, and text compares by code point (UTF-8 bytes).
const lowerC = (s: string) => s.replace(/[A-Z]/g, (c) => c.toLowerCase());
const cmp = (a: string | number, b: string | number) => (a < b ? -1 : a > b ? 1 : 0);
const KEY: Record<string, (r: Row) => (string | number)[]> = {
  ID: (r) => [Number(r.id)],
  NAME: (r) => [lowerC(r.name), r.name],
  SKU: (r) => [lowerC(r.sku), r.sku],
  BASE_PRICE: (r) => [r.basePrice],
  CREATED_AT: (r) => [r.createdAt],
  UPDATED_AT: (r) => [r.updatedAt],
};
function expected(list: Row[], clauses: { column: string; order: 'ASC' | 'DESC' }[]): string[] {
  return [...list]
    .sort((a, b) => {
      for (const { column, order } of clauses) {
        const [ka, kb] = [KEY[column]!(a), KEY[column]!(b)];
        for (let i = 0; i < ka.length; i++) {
          const c = cmp(ka[i]!, kb[i]!);
          if (c !== 0) return order === 'DESC' ? -c : c;
        }
      }
      return Number(a.id) - Number(b.id);
    })
    .map((r) => r.id);
}

describe('the seed query is unchanged', () => {
  it('answers by id with the cursors main issued before search existed', async () => {
    const { products } = await page({ first: 3 });
    expect(products.data.map((r: Row) => r.id)).toEqual(rows.slice(0, 3).map((r) => r.id));
    // base64url("product:3:<crc32>"), as main (2172bdc) encoded the position after product 3.
    expect(products.paginatorInfo.endCursor).toBe('cHJvZHVjdDozOmM3NjQ3ODY3');
    const next = await page({ first: 3, after: 'cHJvZHVjdDozOmM3NjQ3ODY3' });
    expect(next.products.data.map((r: Row) => r.id)).toEqual(rows.slice(3, 6).map((r) => r.id));
    // orderBy ID ascending and a blank search are the default query, cursors included.
    const same = await page({ first: 3, after: 'cHJvZHVjdDozOmM3NjQ3ODY3', search: '  ', orderBy: [{ column: 'ID' }] });
    expect(same.products).toEqual(next.products);
  });
});

describe('orderBy', () => {
  for (const column of ORDER_COLUMNS) {
    for (const order of ['ASC', 'DESC'] as const) {
      it(`${column} ${order}: a walk of pages of 3 is the whole catalogue in that order, ties on id ascending`, async () => {
        const { seen, pages } = await walk({ orderBy: [{ column, order }] });
        expect(seen.map((r) => r.id)).toEqual(expected(rows, [{ column, order }]));
        expect(pages.map((p) => p.currentPage)).toEqual(pages.map((_, i) => i + 1));
        expect(pages.at(-1)).toMatchObject({ total: NAMES.length, lastPage: Math.ceil(NAMES.length / 3) });
      });
    }
  }

  it('two clauses: the second breaks the first one`s ties, then the id', async () => {
    const clauses = [
      { column: 'BASE_PRICE', order: 'DESC' as const },
      { column: 'NAME', order: 'ASC' as const },
    ];
    const { seen } = await walk({ orderBy: clauses }, 4);
    expect(seen.map((r) => r.id)).toEqual(expected(rows, clauses));
    const byCreated = [
      { column: 'CREATED_AT', order: 'ASC' as const },
      { column: 'SKU', order: 'DESC' as const },
    ];
    expect((await walk({ orderBy: byCreated }, 2)).seen.map((r) => r.id)).toEqual(expected(rows, byCreated));
  });

  it('NAME sorts case-insensitively, then by the name itself', async () => {
    const { seen } = await walk({ orderBy: [{ column: 'NAME', order: 'ASC' }] }, 20);
    const desks = seen.filter((r) => lowerC(r.name) === 'desk').map((r) => r.name);
    expect(desks).toEqual(['DESK', 'Desk', 'desk', 'desk']);
  });

  it('sorts names longer than the catalogue accepts (written with SQL) by their first 200 characters', async () => {
    const db = t.database.handle.db;
    const stem = `Ωmega ${'x'.repeat(194)}`;
    await sql`INSERT INTO products (name, sku) VALUES (${`${stem}b${'z'.repeat(5000)}`}, 'LONG-1'), (${`${stem}a`}, 'LONG-2')`.execute(
      db,
    );
    try {
      const { seen } = await walk({ search: 'Ωmega', orderBy: [{ column: 'NAME', order: 'ASC' }] }, 1);
      // Equal in their first 200 characters: a tie, on id ascending (by the whole name, LONG-2 would come first).
      expect(seen.map((r) => r.sku)).toEqual(['LONG-1', 'LONG-2']);
    } finally {
      await sql`DELETE FROM products WHERE sku IN ('LONG-1', 'LONG-2')`.execute(db);
    }
  });

  it('refuses more than two clauses and a column named twice', async () => {
    const three = await page({
      first: 3,
      orderBy: [{ column: 'NAME' }, { column: 'SKU' }, { column: 'ID' }],
    });
    expect(three.errors?.[0]).toMatchObject({
      message: 'orderBy may hold at most 2 clauses, got 3.',
      extensions: { code: 'BAD_USER_INPUT' },
    });
    const twice = await page({ first: 3, orderBy: [{ column: 'NAME' }, { column: 'NAME', order: 'DESC' }] });
    expect(twice.errors?.[0]?.message).toBe('orderBy names NAME twice.');
  });
});

describe('search', () => {
  const names = async (search: string) => (await walk({ search }, 5)).seen.map((r) => r.name).sort();

  it('is a case-insensitive substring of the name or the sku', async () => {
    expect(await names('DESK')).toEqual(['DESK', 'Desk', 'desk', 'desk']);
    expect(await names('ampl')).toEqual([]);
    expect(await names('amp')).toEqual(['Lamp shade', 'lamp']);
    // A sku fragment: both cases of "sku-0".
    expect((await walk({ search: 'kU-0' }, 5)).seen.map((r) => r.sku).sort()).toEqual(
      rows
        .map((r) => r.sku)
        .filter((s) => lowerC(s).includes('ku-0'))
        .sort(),
    );
  });

  it('treats %, _ and \\ as plain characters, and trims', async () => {
    expect(await names('%')).toEqual(['100% wool']);
    expect(await names('_')).toEqual(['snake_case']);
    expect(await names('\\')).toEqual(['back\\slash']);
    expect(await names('  zebra ')).toEqual(['Zebra', 'zebra']);
  });

  it('answers hostile text with an empty page, never an error', async () => {
    const hostile = ['%_\\', '.*', '[a-z]+', '(?i)desk', '\\\\%', "'; DROP TABLE products; --", '^$|{}'];
    for (const chunk of hostile) {
      const search = chunk.repeat(Math.ceil(100 / chunk.length)).slice(0, 100);
      for (const orderBy of [null, [{ column: 'NAME', order: 'DESC' }]]) {
        const { status, errors, products } = await page({ first: 20, search, orderBy });
        expect(status).toBe(200);
        expect(errors).toBeUndefined();
        expect(products.data).toEqual([]);
        expect(products.paginatorInfo).toMatchObject({ total: 0, lastPage: 1, endCursor: null });
      }
    }
  });

  it('is at most 100 characters after trimming', async () => {
    expect((await page({ first: 3, search: ` ${'x'.repeat(100)} ` })).errors).toBeUndefined();
    const long = await page({ first: 3, search: 'é'.repeat(101) });
    expect(long.errors?.[0]).toMatchObject({
      message: 'search must be at most 100 characters, got 101.',
      extensions: { code: 'BAD_USER_INPUT' },
    });
  });

  it('counts the matches: total, lastPage, and the page each record sits on', async () => {
    const { pages, seen } = await walk({ search: 'e', orderBy: [{ column: 'NAME', order: 'ASC' }] }, 2);
    const matches = rows.filter((r) => r.name.toLowerCase().includes('e') || r.sku.toLowerCase().includes('e'));
    expect(seen).toHaveLength(matches.length);
    for (const [i, info] of pages.entries()) {
      expect(info).toMatchObject({
        total: matches.length,
        lastPage: Math.ceil(matches.length / 2),
        currentPage: i + 1,
        firstItem: i * 2 + 1,
        lastItem: i * 2 + info.count,
      });
    }
  });
});

describe('filter', () => {
  it('skus: exact and case-sensitive; an empty list matches nothing; at most 100', async () => {
    const wanted = [rows[0]!.sku, rows[1]!.sku, lowerC(rows[0]!.sku) === rows[0]!.sku ? 'nope' : lowerC(rows[0]!.sku)];
    const { seen } = await walk({ filter: { skus: wanted } });
    expect(seen.map((r) => r.sku).sort()).toEqual(
      rows
        .filter((r) => wanted.includes(r.sku))
        .map((r) => r.sku)
        .sort(),
    );
    expect((await page({ first: 3, filter: { skus: [] } })).products.paginatorInfo).toMatchObject({
      total: 0,
      count: 0,
    });
    const many = await page({ first: 3, filter: { skus: Array.from({ length: 101 }, (_, i) => `S-${i}`) } });
    expect(many.errors?.[0]).toMatchObject({
      message: 'filter.skus may hold at most 100 skus, got 101.',
      extensions: { code: 'BAD_USER_INPUT' },
    });
  });

  it('updatedAfter: only what changed after the instant, with a sync walk by UPDATED_AT', async () => {
    const latest = Math.max(...rows.map((r) => Date.parse(r.updatedAt)));
    const before = new Date(latest + 1).toISOString();
    expect((await page({ first: 3, filter: { updatedAfter: before } })).products.data).toEqual([]);
    await sql`UPDATE products SET base_price = base_price + 1 WHERE id = ${rows[4]!.id}::bigint`.execute(
      t.database.handle.db,
    );
    await sql`UPDATE products SET base_price = base_price + 1 WHERE id = ${rows[2]!.id}::bigint`.execute(
      t.database.handle.db,
    );
    const { seen } = await walk({
      filter: { updatedAfter: before },
      orderBy: [{ column: 'UPDATED_AT', order: 'ASC' }],
    });
    // Oldest change first; two changes in one millisecond tie on id.
    expect(seen.map((r) => r.id).sort()).toEqual([rows[2]!.id, rows[4]!.id].sort());
    expect(seen.map((r) => r.id)).toEqual(expected(seen, [{ column: 'UPDATED_AT', order: 'ASC' }]));
    await sql`UPDATE products SET base_price = base_price - 1 WHERE id IN (${rows[2]!.id}, ${rows[4]!.id})`.execute(
      t.database.handle.db,
    );
    rows = (await t.graphql(PAGE, { token, variables: { first: 100 } })).body.data.products.data;
  });
});

describe('cursors', () => {
  const cursorOf = async (variables: Record<string, unknown>) =>
    (await page({ first: 2, ...variables })).products.paginatorInfo.endCursor as string;
  const invalid = async (variables: Record<string, unknown>) => {
    const { errors } = await page({ first: 2, ...variables });
    expect(errors?.[0]).toMatchObject({ message: 'Invalid cursor.', extensions: { code: 'BAD_USER_INPUT' } });
  };

  it('are bound to the search, filter and orderBy that issued them', async () => {
    const byName = await cursorOf({ orderBy: [{ column: 'NAME' }] });
    await invalid({ after: byName, orderBy: [{ column: 'NAME', order: 'DESC' }] });
    await invalid({ after: byName, orderBy: [{ column: 'SKU' }] });
    await invalid({ after: byName });
    await invalid({ after: byName, orderBy: [{ column: 'NAME' }], search: 'desk' });
    const searched = await cursorOf({ search: 'e' });
    await invalid({ after: searched, search: 'a' });
    await invalid({ after: searched, search: 'e', filter: { skus: ['SKU-00'] } });
    const since = await cursorOf({ filter: { updatedAfter: '2020-01-01T00:00:00Z' } });
    await invalid({ after: since, filter: { updatedAfter: '2020-01-01T00:00:00.001Z' } });
    // The default order's cursor is no other query's.
    await invalid({ after: await cursorOf({}), orderBy: [{ column: 'NAME' }] });
    // The same query takes it: the search is compared trimmed.
    expect((await page({ first: 2, after: searched, search: ' e ' })).errors).toBeUndefined();
  });

  it('refuse an edited cursor, and a well-formed one whose values no row could have', async () => {
    const byPrice = await cursorOf({ orderBy: [{ column: 'BASE_PRICE' }] });
    await invalid({ after: `${byPrice.slice(0, -2)}AA`, orderBy: [{ column: 'BASE_PRICE' }] });
    const text = Buffer.from(byPrice, 'base64url').toString('utf8');
    const [, binding] = JSON.parse(text.slice(0, -9)) as [string, string];
    const forge = (values: unknown, id: unknown = '1') => {
      const payload = JSON.stringify(['k', binding, values, id]);
      return Buffer.from(`${payload}:${crc32(payload).toString(16).padStart(8, '0')}`).toString('base64url');
    };
    // The forger's checksum is right: a sound position is accepted (a keyset position is harmless)...
    expect(
      (await page({ first: 2, after: forge(['1.5']), orderBy: [{ column: 'BASE_PRICE' }] })).errors,
    ).toBeUndefined();
    // ...and a value that would not cast, or an id that is no id, is refused before any SQL.
    for (const values of [['abc'], ['1e400'], ['-1'], [1.5], ['1.5', '2'], []]) {
      await invalid({ after: forge(values), orderBy: [{ column: 'BASE_PRICE' }] });
    }
    await invalid({ after: forge(['1.5'], '0'), orderBy: [{ column: 'BASE_PRICE' }] });
    await invalid({ after: forge(['1.5'], 'x'), orderBy: [{ column: 'BASE_PRICE' }] });
    const byCreated = await cursorOf({ orderBy: [{ column: 'CREATED_AT' }] });
    const createdBinding = (JSON.parse(Buffer.from(byCreated, 'base64url').toString().slice(0, -9)) as string[])[1];
    const forged = (value: string) => {
      const payload = JSON.stringify(['k', createdBinding, [value], '1']);
      return Buffer.from(`${payload}:${crc32(payload).toString(16).padStart(8, '0')}`).toString('base64url');
    };
    for (const value of ['yesterday', '2026-13-01T00:00:00.000Z', '2026-01-01T00:00:00Z', '2026-01-01 00:00:00.000Z']) {
      await invalid({ after: forged(value), orderBy: [{ column: 'CREATED_AT' }] });
    }
    await invalid({ after: 'x'.repeat(5000), orderBy: [{ column: 'NAME' }] });
  });
});

describe('search folds letters beyond ASCII', () => {
  it('finds Ärger and ärger by either case, on the embedded database too (a UTF-8 LC_CTYPE folds them)', async () => {
    for (const search of ['ÄRGER', 'ärger']) {
      const { body } = await t.graphql(`query ($s: String) { products(first: 50, search: $s) { data { name } } }`, {
        token,
        variables: { s: search },
      });
      const names = (body.data as { products: { data: { name: string }[] } }).products.data.map((p) => p.name);
      expect(names).toEqual(expect.arrayContaining(['Ärger', 'ärger']));
    }
  });
});

describe('productBySku', () => {
  beforeEach(() => t.database.queries.reset());

  it('finds one product by its exact sku (spaces around it ignored), null otherwise, and batches aliases into one statement', async () => {
    const target = rows[3]!;
    const { body } = await t.graphql(
      `query ($a: String!, $b: String!, $c: String!, $d: String!) {
        a: productBySku(sku: $a) { id name sku }
        b: productBySku(sku: $b) { id }
        c: productBySku(sku: $c) { id }
        d: productBySku(sku: $d) { id }
      }`,
      {
        token,
        variables: {
          a: target.sku,
          b: lowerC(target.sku) === target.sku ? 'NOPE' : lowerC(target.sku),
          c: 'x'.repeat(10_000),
          // Writes trim skus, so lookups do too.
          d: ` ${target.sku}\t`,
        },
      },
    );
    expect(body.errors).toBeUndefined();
    expect(body.data).toEqual({
      a: { id: target.id, name: target.name, sku: target.sku },
      b: null,
      c: null,
      d: { id: target.id },
    });
    const productStatements = t.database.queries.statements.filter((s) => /from "?products"?/i.test(s));
    expect(productStatements).toHaveLength(1);
  });
});

describe('cost and statements', () => {
  beforeEach(() => t.database.queries.reset());

  it('prices a search page like any page', async () => {
    const deep = (args: string) =>
      `{ ${Array.from({ length: 10 }, (_, i) => `p${i}: products(first: 100${args}) { data { steps { components { customisations { id name type price } } } } }`).join(' ')} }`;
    const plain = await t.graphql(deep(''), { token });
    const searched = await t.graphql(deep(', search: "desk", orderBy: [{ column: NAME }]'), { token });
    expect(plain.body.errors?.[0]?.message).toMatch(/^Query cost limit of \d+ exceeded, found \d+\.$/);
    expect(searched.body.errors?.[0]?.message).toBe(plain.body.errors[0].message);
  });

  it('a search page is one statement, with or without the counts (one snapshot for rows and counts)', async () => {
    await page({ first: 5, search: 'desk', orderBy: [{ column: 'NAME' }] }).then((r) =>
      expect(r.errors).toBeUndefined(),
    );
    const products = () => t.database.queries.statements.filter((s) => /from "?products"?/i.test(s)).length;
    // PAGE selects paginatorInfo's counts.
    expect(products()).toBe(1);
    t.database.queries.reset();
    const { body } = await t.graphql(
      '{ products(first: 5, search: "desk") { data { id } paginatorInfo { hasMorePages endCursor } } }',
      {
        token,
      },
    );
    expect(body.errors).toBeUndefined();
    expect(products()).toBe(1);
  });
});

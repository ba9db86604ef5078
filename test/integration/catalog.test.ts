import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertProductTrees, type NewProductTree } from '../../src/modules/catalog/tools.ts';
import { startTestApp, type TestApp } from '../support/app.ts';

const FULL_PRODUCT = `
  query ($id: ID!) {
    product(id: $id) {
      id name sku
      steps { id name order components { id name customisations { id name type price } } }
    }
  }`;

const FULL_PAGE = `
  query ($first: Int!, $after: String) {
    products(first: $first, after: $after) {
      data { id name sku steps { id name order components { id name customisations { id name type price } } } }
      paginatorInfo { count currentPage firstItem hasMorePages lastItem lastPage perPage total endCursor }
    }
  }`;

function tree(i: number, overrides: Partial<NewProductTree> = {}): NewProductTree {
  return {
    name: `Product ${i}`,
    sku: `SKU-${String(i).padStart(3, '0')}`,
    steps: [1, 2].map((order) => ({
      name: `Step ${order}`,
      order,
      components: [1, 2].map((position) => ({
        name: `Component ${position}`,
        position,
        customisations: [{ name: 'Colour', type: 'colour', price: '1.50' }],
      })),
    })),
    ...overrides,
  };
}

let t: TestApp;
let token: string;
let credentials: [email: string, password: string];
let firstId: number;

beforeAll(async () => {
  t = await startTestApp();
  // A product whose children are inserted out of order, and prices that a float would mangle.
  await insertProductTrees(t.database.handle.db, [
    {
      name: 'Configurable Desk',
      sku: 'DESK-1',
      steps: [
        {
          name: 'Finish',
          order: 3,
          components: [
            { name: 'Top', position: 1, customisations: [{ name: 'Oil', type: 'dropdown', price: '0.29' }] },
          ],
        },
        {
          name: 'Size',
          order: 1,
          components: [
            { name: 'Legs', position: 2, customisations: [{ name: 'Tall', type: 'dropdown', price: '12.50' }] },
            {
              name: 'Frame',
              position: 1,
              customisations: [
                { name: 'Engraving', type: 'text', price: '0.10' },
                { name: 'Logo', type: 'image', price: '9999999999.99' },
              ],
            },
          ],
        },
        { name: 'Colour', order: 2, components: [] },
      ],
    },
  ]);
  await insertProductTrees(
    t.database.handle.db,
    Array.from({ length: 11 }, (_, i) => tree(i + 2)),
  );
  const user = await t.createUser();
  credentials = [user.email, user.password];
  token = await t.login(...credentials);
  const { body } = await t.graphql('{ products(first: 1) { data { id } } }', { token });
  firstId = Number(body.data.products.data[0].id);
});
afterAll(() => t?.close());

describe('product(id)', () => {
  it('returns the whole tree, each list in its documented order, prices exact', async () => {
    const { status, body } = await t.graphql(FULL_PRODUCT, { token, variables: { id: String(firstId) } });
    expect(status).toBe(200);
    expect(body.errors).toBeUndefined();
    const product = body.data.product;
    expect(product).toMatchObject({ id: String(firstId), name: 'Configurable Desk', sku: 'DESK-1' });
    expect(product.steps.map((s: any) => [s.name, s.order])).toEqual([
      ['Size', 1],
      ['Colour', 2],
      ['Finish', 3],
    ]);
    expect(product.steps[0].components.map((c: any) => c.name)).toEqual(['Frame', 'Legs']);
    expect(product.steps[1].components).toEqual([]);
    expect(product.steps[0].components[0].customisations).toEqual([
      expect.objectContaining({ name: 'Engraving', type: 'text', price: 0.1 }),
      expect.objectContaining({ name: 'Logo', type: 'image', price: 9999999999.99 }),
    ]);
    expect(product.steps[2].components[0].customisations[0].price).toBe(0.29);
    expect(typeof product.id).toBe('string');
  });

  it('prices travel as the exact decimal text', async () => {
    const res = await fetch(`${t.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ query: FULL_PRODUCT, variables: { id: String(firstId) } }),
    });
    const text = await res.text();
    expect(text).toContain('"price":0.29');
    expect(text).toContain('"price":12.5');
    expect(text).toContain('"price":9999999999.99');
  });

  it('is null for an id no product has', async () => {
    for (const id of ['999999', '0', 'abc', '99999999999999999999']) {
      const { status, body } = await t.graphql(FULL_PRODUCT, { token, variables: { id } });
      expect(status).toBe(200);
      expect(body).toEqual({ data: { product: null } });
    }
  });

  it('costs one token lookup (a fresh token) plus one statement per level', async () => {
    const fresh = await t.login(...credentials);
    t.database.queries.reset();
    const { body } = await t.graphql(FULL_PRODUCT, { token: fresh, variables: { id: String(firstId + 1) } });
    expect(body.data.product.steps).toHaveLength(2);
    const statements = t.database.queries.statements.filter((s) => !s.startsWith('update'));
    // token+user, product, steps, components, customisations
    expect(statements).toHaveLength(5);
  });
});

describe('products(first, after)', () => {
  it('pages with the seed and Lighthouse paginatorInfo fields', async () => {
    const { body } = await t.graphql(FULL_PAGE, { token, variables: { first: 5 } });
    expect(body.errors).toBeUndefined();
    const { data, paginatorInfo } = body.data.products;
    expect(data.map((p: any) => Number(p.id))).toEqual([0, 1, 2, 3, 4].map((i) => firstId + i));
    expect(paginatorInfo).toMatchObject({
      count: 5,
      currentPage: 1,
      firstItem: 1,
      hasMorePages: true,
      lastItem: 5,
      lastPage: 3,
      perPage: 5,
      total: 12,
    });
    expect(typeof paginatorInfo.endCursor).toBe('string');
  });

  it('walks every product exactly once over more than three pages, while others are added and removed', async () => {
    const seen: number[] = [];
    const pages: any[] = [];
    let after: string | null = null;
    let inserted = false;
    for (let guard = 0; guard < 20; guard++) {
      const { body } = await t.graphql(FULL_PAGE, { token, variables: { first: 3, after } });
      expect(body.errors).toBeUndefined();
      const page = body.data.products;
      pages.push(page.paginatorInfo);
      seen.push(...page.data.map((p: any) => Number(p.id)));
      if (!inserted) {
        // Mid-walk: a new product appears at the end and one already seen disappears.
        await insertProductTrees(t.database.handle.db, [tree(100)]);
        await t.database.handle.db.deleteFrom('products').where('sku', '=', 'SKU-002').execute();
        inserted = true;
      }
      if (!page.paginatorInfo.hasMorePages) break;
      after = page.paginatorInfo.endCursor;
    }
    expect(pages.length).toBeGreaterThan(3);
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen).toEqual([...seen].sort((a, b) => a - b));
    // Every product that existed throughout the walk was seen.
    const existing = await t.database.handle.db.selectFrom('products').select('id').orderBy('id').execute();
    for (const { id } of existing) expect(seen).toContain(Number(id));
    // currentPage is the page the records sit on now: one product removed before the cursor shifts it.
    for (const info of pages.filter((p) => p.count > 0)) {
      expect(info.currentPage).toBe(Math.floor((info.firstItem - 1) / info.perPage) + 1);
    }
    // Restore the catalogue for the other tests.
    await t.database.handle.db.deleteFrom('products').where('sku', '=', 'SKU-100').execute();
    await insertProductTrees(t.database.handle.db, [tree(2)]);
  });

  it('numbers pages 1..lastPage on an unchanged catalogue', async () => {
    const infos: any[] = [];
    let after: string | null = null;
    do {
      const { body } = await t.graphql(FULL_PAGE, { token, variables: { first: 5, after } });
      infos.push(body.data.products.paginatorInfo);
      after = body.data.products.paginatorInfo.endCursor;
    } while (infos.at(-1).hasMorePages);
    expect(infos.map((i) => [i.currentPage, i.lastPage, i.count, i.firstItem, i.lastItem])).toEqual([
      [1, 3, 5, 1, 5],
      [2, 3, 5, 6, 10],
      [3, 3, 2, 11, 12],
    ]);
  });

  it('reports an empty last page with a null endCursor', async () => {
    const all = await t.graphql(FULL_PAGE, { token, variables: { first: 100 } });
    const cursor = all.body.data.products.paginatorInfo.endCursor;
    expect(all.body.data.products.paginatorInfo.hasMorePages).toBe(false);
    const { body } = await t.graphql(FULL_PAGE, { token, variables: { first: 5, after: cursor } });
    expect(body.data.products.data).toEqual([]);
    expect(body.data.products.paginatorInfo).toMatchObject({
      count: 0,
      endCursor: null,
      hasMorePages: false,
      firstItem: null,
      lastItem: null,
      total: 12,
      lastPage: 3,
    });
  });

  it('uses first = 20 by default', async () => {
    const { body } = await t.graphql('{ products { paginatorInfo { perPage count } } }', { token });
    expect(body.data.products.paginatorInfo).toEqual({ perPage: 20, count: 12 });
  });

  it('refuses a page larger than the maximum with Lighthouse wording', async () => {
    const { body } = await t.graphql('{ products(first: 500) { data { id } } }', { token });
    expect(body.data).toBeNull();
    expect(body.errors[0].message).toBe(
      'Maximum number of 100 requested items exceeded, got 500. Fetch smaller chunks.',
    );
    expect(body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
  });

  it('refuses a page size below 1', async () => {
    const { body } = await t.graphql('{ products(first: 0) { data { id } } }', { token });
    expect(body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
  });

  it('honours MAX_PAGE_SIZE', async () => {
    const small = await startTestApp({ env: { MAX_PAGE_SIZE: '5' }, database: t.database });
    try {
      const { body } = await small.graphql('{ products(first: 6) { data { id } } }', { token });
      expect(body.errors[0].message).toBe('Maximum number of 5 requested items exceeded, got 6. Fetch smaller chunks.');
    } finally {
      await small.close();
    }
  });

  it.each([
    ['garbage', 'not-a-cursor'],
    ['base64 of an offset', Buffer.from('5').toString('base64')],
    ['a foreign kind', Buffer.from('user:1:00000000').toString('base64url')],
    ['an over-long string', 'A'.repeat(5000)],
  ])('refuses %s as a cursor instead of restarting at page one', async (_name, after) => {
    const { body } = await t.graphql(FULL_PAGE, { token, variables: { first: 2, after } });
    expect(body.data).toBeNull();
    expect(body.errors[0]).toMatchObject({ message: 'Invalid cursor.', extensions: { code: 'BAD_USER_INPUT' } });
  });

  it('refuses a cursor with one character changed', async () => {
    const { body: page } = await t.graphql(FULL_PAGE, { token, variables: { first: 2 } });
    const cursor: string = page.data.products.paginatorInfo.endCursor;
    const tampered = cursor.slice(0, 4) + (cursor[4] === 'A' ? 'B' : 'A') + cursor.slice(5);
    const { body } = await t.graphql(FULL_PAGE, { token, variables: { first: 2, after: tampered } });
    expect(body.errors[0].message).toBe('Invalid cursor.');
  });

  it('costs one token lookup (a fresh token) plus one statement per level for a full page of 50', async () => {
    await insertProductTrees(
      t.database.handle.db,
      Array.from({ length: 45 }, (_, i) => tree(200 + i)),
    );
    const fresh = await t.login(...credentials);
    t.database.queries.reset();
    const { body } = await t.graphql(FULL_PAGE, { token: fresh, variables: { first: 50 } });
    expect(body.data.products.data).toHaveLength(50);
    const statements = t.database.queries.statements.filter((s) => !s.startsWith('update'));
    // token+user, page with counts, steps, components, customisations
    expect(statements).toHaveLength(5);
    await t.database.handle.db
      .deleteFrom('products')
      .where('sku', 'like', 'SKU-2__')
      .where('sku', '>=', 'SKU-200')
      .execute();
  });
});

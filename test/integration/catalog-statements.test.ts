import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { seedCatalog } from '../../db/seeds/catalog.ts';
import { QUERIES } from '../../scripts/bench/queries.ts';
import { startTestApp, UNCACHED, type TestApp } from '../support/app.ts';

// The benchmark's operations (npm run bench) must keep their statement bound on the cold
// path (no response or token cache): one token lookup plus one statement per level of the
// product tree, however many products a page holds. A DataLoader or a resolver that stops batching shows here
// as a count that grows with the data.

let t: TestApp;
let token: string;
let ids: string[];

beforeAll(async () => {
  t = await startTestApp({ env: UNCACHED });
  await seedCatalog(t.app.database.db, { products: 45, seed: 7 });
  const user = await t.createUser();
  token = await t.login(user.email, user.password);
  ids = (await t.app.database.db.selectFrom('products').select('id').orderBy('id').execute()).map((r) => String(r.id));
  // The first request with a fresh token also records last_used_at (at most once a
  // minute, off the request's path); make it here so the counts below are per request.
  expect((await t.graphql(QUERIES.Q0, { token })).status).toBe(200);
  await new Promise((resolve) => setTimeout(resolve, 100));
});
afterAll(() => t.close());
beforeEach(() => t.database.queries.reset());

function statementsByTable() {
  // The FROM of the statement, not the one inside extract(epoch from …).
  return t.database.queries.statements.map((sql) => /(?<!epoch )from\s+"?(\w+)"?/i.exec(sql)?.[1] ?? sql.slice(0, 40));
}

describe('statements per request', () => {
  it('product(id) at full depth: the token, then one statement per level (5)', async () => {
    const res = await t.graphql(QUERIES.Q1, { token, variables: { id: ids[17] } });
    expect(res.status).toBe(200);
    const product = res.body.data.product;
    expect(product.id).toBe(ids[17]);
    expect(product.steps).toHaveLength(5);
    expect(product.steps[0].components).toHaveLength(4);
    expect(product.steps[0].components[0].customisations).toHaveLength(3);
    expect(statementsByTable()).toEqual([
      'personal_access_tokens',
      'products',
      'steps',
      'components',
      'customisations',
    ]);
  });

  it('configure at full depth costs what product(id) does, plus one statement for the rules (6)', async () => {
    const tree = await t.graphql(QUERIES.Q1, { token, variables: { id: ids[17] } });
    const chosen = tree.body.data.product.steps.flatMap((s: any) =>
      s.components.flatMap((c: any) => c.customisations.slice(0, 1)),
    );
    t.database.queries.reset();
    const res = await t.graphql(
      `query ($id: ID!, $selections: [SelectionInput!]!) {
        configure(productId: $id, selections: $selections) {
          product { id basePrice currency rules { id customisation { id } other { id } }
            steps { id required components { id minSelections maxSelections customisations { id name price priceMode } } } }
          valid violations { code customisationId }
          price { base { amount } lines { customisationId amount { amount } customisation { id name price } } total { amount } }
        }
      }`,
      {
        token,
        variables: {
          id: ids[17],
          selections: chosen.map((c: { id: string }) => ({ customisationId: c.id, value: 'v' })),
        },
      },
    );
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.configure.price.lines).toHaveLength(chosen.length);
    expect(statementsByTable().sort()).toEqual(
      ['personal_access_tokens', 'products', 'steps', 'configuration_rules', 'components', 'customisations'].sort(),
    );
  });

  it('products(first: 20, after) at full depth: the token, the page, then one per level (5)', async () => {
    const first = await t.graphql(QUERIES.Q2, { token, variables: { after: null } });
    const cursor = first.body.data.products.paginatorInfo.endCursor;
    t.database.queries.reset();

    const res = await t.graphql(QUERIES.Q2, { token, variables: { after: cursor } });
    expect(res.status).toBe(200);
    const page = res.body.data.products;
    expect(page.data.map((p: { id: string }) => p.id)).toEqual(ids.slice(20, 40));
    expect(page.data.every((p: { steps: unknown[] }) => p.steps.length === 5)).toBe(true);
    expect(page.paginatorInfo.hasMorePages).toBe(true);
    expect(t.database.queries.count).toBe(5);
    expect(statementsByTable().slice(2)).toEqual(['steps', 'components', 'customisations']);
  });

  it('a page that asks for counts still costs one statement for the page', async () => {
    const res = await t.graphql(
      `{ products(first: 20) { data { id steps { id } } paginatorInfo { total lastPage currentPage } } }`,
      { token },
    );
    expect(res.body.data.products.paginatorInfo).toEqual({ total: 45, lastPage: 3, currentPage: 1 });
    expect(t.database.queries.count).toBe(3);
  });
});

describe('paginatorInfo with and without counts', () => {
  it('counts asked for through a fragment are fetched', async () => {
    const first = await t.graphql(`{ products(first: 20) { paginatorInfo { endCursor } } }`, { token });
    const res = await t.graphql(
      `query ($after: String) {
        products(first: 20, after: $after) { paginatorInfo { ...Counts hasMorePages } }
      }
      fragment Counts on PaginatorInfo { ... on PaginatorInfo { total firstItem lastItem } }`,
      { token, variables: { after: first.body.data.products.paginatorInfo.endCursor } },
    );
    expect(res.body).toEqual({
      data: { products: { paginatorInfo: { total: 45, firstItem: 21, lastItem: 40, hasMorePages: true } } },
    });
  });

  it('fields that need no counts are right without them', async () => {
    const res = await t.graphql(`{ products(first: 20) { paginatorInfo { count perPage hasMorePages endCursor } } }`, {
      token,
    });
    const info = res.body.data.products.paginatorInfo;
    expect(info).toMatchObject({ count: 20, perPage: 20, hasMorePages: true });
    expect(typeof info.endCursor).toBe('string');
    expect(t.database.queries.statements.some((sql) => /count\(\*\)/i.test(sql))).toBe(false);
  });
});

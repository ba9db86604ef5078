import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ADJECTIVES as SEED_ADJECTIVES,
  MATERIALS as SEED_MATERIALS,
  PRODUCTS as SEED_NOUNS,
} from '../../db/seeds/catalog.ts';
import { preparedStatementName } from '../../src/platform/prepared.ts';
import { startTestApp, UNCACHED, type TestApp } from '../support/app.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { ORDER_COLUMNS } from '../support/find-products.ts';

// The plans PostgreSQL chooses for products(search, orderBy) on a catalogue large enough for them to
// matter: each statement the service sends is explained with its own parameters, and none may read
// the whole products table. The embedded database has no planner worth asserting on: PostgreSQL only.
const onPostgres = Boolean(process.env.DATABASE_URL);

const PRODUCTS = 100_000;
// The seed's words and more of each kind: 20 × 20 × 25 names.
const ADJECTIVES = [...SEED_ADJECTIVES, 'Alpine', 'Bold', 'Quiet', 'Royal', 'Sunny', 'Tidal', 'Velvety', 'Zen'];
const MATERIALS = [...SEED_MATERIALS, 'Copper', 'Cork', 'Denim', 'Glass', 'Jute', 'Pine', 'Rattan', 'Wool'];
const NOUNS = [...SEED_NOUNS, 'Stool', 'Rug', 'Vase', 'Clock', 'Mirror', 'Bench', 'Cabinet', 'Planter', 'Tray'];

/**
 * 20 × 20 × 25 names (about ten products each, one in seven in lower case), skus PLN-000001…, 400 prices
 * (250 products each), created_at three a minute and updated_at later by up to 5,000 minutes: many ties.
 * j walks 0…99,999 in a scrambled order, so no column follows the id.
 */
const SEED = `
  WITH w AS (SELECT $1::text[] AS a, $2::text[] AS m, $3::text[] AS n),
  g AS (SELECT i, (i::bigint * 7919) % ${PRODUCTS} AS j FROM generate_series(1, ${PRODUCTS}) AS i)
  INSERT INTO products (name, sku, base_price, created_at, updated_at)
  SELECT CASE WHEN i % 7 = 0 THEN lower(x.name) ELSE x.name END,
    'PLN-' || lpad(i::text, 6, '0'),
    ((j % 400) + 1) * 2.5,
    timestamptz '2026-01-01 00:00:00Z' + (i / 3) * interval '1 minute',
    timestamptz '2026-01-01 00:00:00Z' + (i / 3 + j % 5000) * interval '1 minute'
  FROM g, w, LATERAL (
    SELECT w.a[1 + j % 20] || ' ' || w.m[1 + (j / 20) % 20] || ' ' || w.n[1 + (j / 400) % 25] AS name
  ) x`;

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  Plans?: PlanNode[];
}

const nodesOf = (node: PlanNode): PlanNode[] => [node, ...(node.Plans ?? []).flatMap(nodesOf)];
const describeNode = (n: PlanNode) =>
  `${n['Node Type']}${n['Index Name'] ? ` ${n['Index Name']}` : n['Relation Name'] ? ` ${n['Relation Name']}` : ''}`;

const PAGE = `query Find($first: Int!, $after: String, $search: String, $orderBy: [ProductOrderBy!]) {
  products(first: $first, after: $after, search: $search, orderBy: $orderBy) {
    data { id name sku } paginatorInfo { hasMorePages endCursor } } }`;
const COUNTED = `query Find($search: String, $orderBy: [ProductOrderBy!]) {
  products(first: 20, search: $search, orderBy: $orderBy) { data { id } paginatorInfo { total } } }`;

/** Walked to before the deep page: well past the middle, by pages of the largest size allowed. */
const WALK_PAGES = 6;
const WALK_PAGE_SIZE = 10_000;

describe.skipIf(!onPostgres)(`products' plans on ${PRODUCTS.toLocaleString('en')} products (PostgreSQL)`, () => {
  let database: TestDatabase;
  let t: TestApp;
  let token: string;
  let explainer: pg.Client;
  /** One line a case, printed at the end: the brief's record, shorter searches included. */
  const record: string[] = [];

  beforeAll(async () => {
    database = await createTestDatabase();
    explainer = new pg.Client({ connectionString: database.url });
    await explainer.connect();
    // The insert trigger stamps every row of a statement alike: off (this session only) for spread timestamps.
    await explainer.query(`SET session_replication_role = replica`);
    await explainer.query(SEED, [ADJECTIVES, MATERIALS, NOUNS]);
    await explainer.query(`RESET session_replication_role`);
    await explainer.query('ANALYZE products');
    // Deep cursors come from a walk of a few large pages.
    t = await startTestApp({
      database,
      env: { ...UNCACHED, MAX_PAGE_SIZE: String(WALK_PAGE_SIZE), GRAPHQL_MAX_COST: '10000000' },
    });
    const user = await t.createUser();
    token = await t.login(user.email, user.password);
  }, 300_000);

  afterAll(async () => {
    if (record.length > 0) console.info(`plans seen:\n${record.join('\n')}`);
    await t?.close();
    await explainer?.end();
    await database?.drop();
  });

  async function ask(query: string, variables: Record<string, unknown>) {
    const { status, body } = await t.graphql(query, { token, variables });
    expect(status, JSON.stringify(body)).toBe(200);
    expect(body.errors, JSON.stringify(body.errors)).toBeUndefined();
    return body.data.products as { data: { id: string }[]; paginatorInfo: { endCursor: string | null } };
  }

  /**
   * The plan a statement runs with: a statement the service prepares runs, after its first few executions,
   * with the plan PostgreSQL makes without the values (a generic plan): that one is explained.
   */
  async function explain(text: string, parameters: unknown[]): Promise<PlanNode> {
    type Explained = { 'QUERY PLAN': [{ Plan: PlanNode }] };
    if (!preparedStatementName(text)) {
      return (await explainer.query<Explained>(`EXPLAIN (FORMAT JSON) ${text}`, parameters)).rows[0]!['QUERY PLAN'][0]
        .Plan;
    }
    await explainer.query('SET plan_cache_mode = force_generic_plan');
    await explainer.query(`PREPARE plan_check AS ${text}`);
    try {
      // EXECUTE takes no bound parameters: the values go in as literals, cast to the statement's types.
      const literal = (v: unknown) =>
        explainer.escapeLiteral(
          Array.isArray(v) ? `{${v.map((x) => `"${String(x).replace(/["\\]/g, '\\$&')}"`).join(',')}}` : String(v),
        );
      const args = parameters.map(literal).join(', ');
      return (await explainer.query<Explained>(`EXPLAIN (FORMAT JSON) EXECUTE plan_check(${args})`)).rows[0]![
        'QUERY PLAN'
      ][0].Plan;
    } finally {
      await explainer.query('DEALLOCATE plan_check');
      await explainer.query('RESET plan_cache_mode');
    }
  }

  /** Runs the request and explains every statement it sent on products, with the parameters sent. */
  async function plansOf(query: string, variables: Record<string, unknown>) {
    database.queries.reset();
    const products = await ask(query, variables);
    const sent = database.queries.sent.filter((s) => /\bfrom "?products"?(\s|$)/i.test(s.sql));
    expect(sent.length).toBeGreaterThan(0);
    const plans = [];
    for (const statement of sent) {
      const plan = nodesOf(await explain(statement.sql, [...statement.parameters]));
      // Marked in the record: the plan of a prepared statement, made without the values.
      if (preparedStatementName(statement.sql)) plan.unshift({ 'Node Type': '(generic)' });
      plans.push(plan);
    }
    return { products, plans };
  }

  function check(label: string, plans: PlanNode[][], assert = true) {
    for (const nodes of plans) record.push(`${label}: ${nodes.map(describeNode).join(' > ')}`);
    if (!assert) return;
    const scans = plans.flat().filter((n) => n['Node Type'] === 'Seq Scan' && n['Relation Name'] === 'products');
    expect(scans.map(describeNode), `${label} reads every product`).toEqual([]);
  }

  for (const column of ORDER_COLUMNS) {
    for (const order of ['ASC', 'DESC'] as const) {
      it(`orderBy ${column} ${order}: the first page and a page deep into the walk are index ranges`, async () => {
        const orderBy = [{ column, order }];
        const first = await plansOf(PAGE, { first: 20, orderBy });
        expect(first.products.data).toHaveLength(20);
        check(`${column} ${order} first page`, first.plans);

        let after: string | null = null;
        for (let i = 0; i < WALK_PAGES; i++) {
          const page = await ask(PAGE, { first: WALK_PAGE_SIZE, after, orderBy });
          after = page.paginatorInfo.endCursor;
        }
        const deep = await plansOf(PAGE, { first: 20, after, orderBy });
        expect(deep.products.data).toHaveLength(20);
        check(`${column} ${order} page after ${WALK_PAGES * WALK_PAGE_SIZE}`, deep.plans);
      });
    }
  }

  // About ten products each: a whole name's three words, and five digits of a sku.
  const SELECTIVE = ['nordic walnut desk', '04212'];

  for (const search of SELECTIVE) {
    it(`a selective search (${JSON.stringify(search)}) reads the trigram indexes, by id, by name and counted`, async () => {
      const byId = await plansOf(PAGE, { first: 20, search });
      expect(byId.products.data.length).toBeGreaterThan(0);
      check(`search ${JSON.stringify(search)}`, byId.plans);

      for (const order of ['ASC', 'DESC'] as const) {
        const byName = await plansOf(PAGE, { first: 20, search, orderBy: [{ column: 'NAME', order }] });
        expect(byName.products.data.length).toBeGreaterThan(0);
        check(`search ${JSON.stringify(search)} NAME ${order}`, byName.plans);
      }

      const counted = await plansOf(COUNTED, { search });
      check(`search ${JSON.stringify(search)} with total`, counted.plans);
    });
  }

  // Recorded, not asserted: one and two characters have no trigram to look up; "Zen Cork" matches 250
  // products, and PostgreSQL prices counting them through the trigram indexes (common trigrams) above
  // reading every product.
  it('records what searches of one and two characters, and one of 250 matches, do (they may read every product)', async () => {
    for (const search of ['k', 'de', 'qu', 'Zen Cork']) {
      const { plans } = await plansOf(PAGE, { first: 20, search });
      check(`search ${JSON.stringify(search)} (not asserted)`, plans, false);
      const counted = await plansOf(COUNTED, { search });
      check(`search ${JSON.stringify(search)} with total (not asserted)`, counted.plans, false);
    }
  });

  // Last: it changes the data. One import, or migration 0017's base price of 0, gives most products one value.
  it('a page inside a tie group of 90,000 products is still an index range, in either direction', async () => {
    await explainer.query(`SET session_replication_role = replica`);
    await explainer.query(
      `UPDATE products SET base_price = 0, created_at = timestamptz '2026-06-01 00:00:00Z' WHERE id % 10 <> 0`,
    );
    await explainer.query(`RESET session_replication_role`);
    await explainer.query('ANALYZE products');
    for (const column of ['BASE_PRICE', 'CREATED_AT'] as const) {
      for (const order of ['ASC', 'DESC'] as const) {
        const orderBy = [{ column, order }];
        let after: string | null = null;
        for (let i = 0; i < WALK_PAGES; i++)
          after = (await ask(PAGE, { first: WALK_PAGE_SIZE, after, orderBy })).paginatorInfo.endCursor;
        const deep = await plansOf(PAGE, { first: 20, after, orderBy });
        expect(deep.products.data).toHaveLength(20);
        const label = `${column} ${order} inside the tie group`;
        check(label, deep.plans);
        // A sort here would sort the whole group for every page.
        const sorts = deep.plans.flat().filter((n) => n['Node Type'].endsWith('Sort'));
        expect(sorts.map(describeNode), `${label} sorts`).toEqual([]);
      }
    }
  });
});

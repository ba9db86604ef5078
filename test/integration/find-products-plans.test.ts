import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import {
  ADJECTIVES as SEED_ADJECTIVES,
  MATERIALS as SEED_MATERIALS,
  PRODUCTS as SEED_NOUNS,
} from '../../db/seeds/catalog.ts';
import { preparedStatementName } from '../../src/platform/prepared.ts';
import { startTestApp, UNCACHED, type TestApp } from '../support/app.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { ORDER_COLUMNS } from '../support/find-products.ts';
import { DEFAULT_TENANT_ID } from '../../src/platform/tenancy.ts';

// The plans PostgreSQL chooses for products(search, orderBy) on a catalogue large enough for them to
// matter: each statement the service sends is run again under EXPLAIN ANALYZE with its own parameters,
// as the service's ordinary role inside the tenant, where row-level security applies (a superuser's plans
// would hide a condition the policy keeps out of the index), and none may read the whole tenant. The
// embedded database has no planner worth asserting on: PostgreSQL only.
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
  'Actual Rows'?: number;
  'Actual Loops'?: number;
  'Rows Removed by Filter'?: number;
  'Rows Removed by Index Recheck'?: number;
  /** On the top node: the statement's time, in ms. */
  'Execution Time'?: number;
  Plans?: PlanNode[];
}

/** Rows a plan read from products and dropped again: a position or condition applied after the scan. */
const discarded = (nodes: PlanNode[]) =>
  nodes
    .filter((n) => n['Relation Name'] === 'products')
    .reduce(
      (sum, n) =>
        sum +
        ((n['Rows Removed by Filter'] ?? 0) + (n['Rows Removed by Index Recheck'] ?? 0)) * (n['Actual Loops'] ?? 1),
      0,
    );

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
  /** The service's own role, inside the default tenant: what the service's statements are planned as. */
  let explainer: pg.Client;
  /** One line a case, printed at the end: the brief's record, shorter searches included. */
  const record: string[] = [];

  beforeAll(async () => {
    // The walk's pages of 10,000 products outlast the service's 2 s statement timeout on a loaded machine.
    database = await createTestDatabase({ statementTimeoutMs: 30_000 });
    await asSuperuser(async (admin) => {
      // The insert trigger stamps every row of a statement alike: off (this session only) for spread timestamps.
      await admin.query(`SET session_replication_role = replica`);
      await admin.query(SEED, [ADJECTIVES, MATERIALS, NOUNS]);
      await admin.query('ANALYZE products');
    });
    explainer = new pg.Client({ connectionString: database.url });
    await explainer.connect();
    const { rows } = await explainer.query<{ bypasses: boolean }>(
      `SELECT rolsuper OR rolbypassrls AS bypasses FROM pg_roles WHERE rolname = current_user`,
    );
    expect(rows[0]?.bypasses, 'the explaining role escapes row-level security').toBe(false);
    await explainer.query(`SELECT set_config('pcs.tenant_id', $1, false)`, [DEFAULT_TENANT_ID]);
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

  /** A superuser's session on the test's database (session_replication_role is theirs), inside the default tenant. */
  async function asSuperuser(fn: (admin: pg.Client) => Promise<void>) {
    const info = inject('testDatabase');
    if (info.kind !== 'postgres') throw new Error('PostgreSQL only');
    const url = new URL(info.adminUrl);
    url.pathname = new URL(database.url!).pathname;
    const admin = new pg.Client({ connectionString: url.toString() });
    await admin.connect();
    try {
      await admin.query(`SELECT set_config('pcs.tenant_id', $1, false)`, [DEFAULT_TENANT_ID]);
      await fn(admin);
    } finally {
      await admin.end();
    }
  }

  async function ask(query: string, variables: Record<string, unknown>) {
    const { status, body } = await t.graphql(query, { token, variables });
    expect(status, JSON.stringify(body)).toBe(200);
    expect(body.errors, JSON.stringify(body.errors)).toBeUndefined();
    return body.data.products as { data: { id: string }[]; paginatorInfo: { endCursor: string | null } };
  }

  /**
   * The plan a statement runs with, run: a statement the service prepares runs, after its first few
   * executions, with the plan PostgreSQL makes without the values (a generic plan): that one is explained.
   */
  async function explain(text: string, parameters: unknown[]): Promise<PlanNode> {
    type Explained = { 'QUERY PLAN': [{ Plan: PlanNode; 'Execution Time': number }] };
    const top = (explained: pg.QueryResult<Explained>) => {
      const [{ Plan, 'Execution Time': ms }] = explained.rows[0]!['QUERY PLAN'];
      return { ...Plan, 'Execution Time': ms };
    };
    if (!preparedStatementName(text)) {
      return top(await explainer.query<Explained>(`EXPLAIN (ANALYZE, FORMAT JSON) ${text}`, parameters));
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
      return top(await explainer.query<Explained>(`EXPLAIN (ANALYZE, FORMAT JSON) EXECUTE plan_check(${args})`));
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

  /** At most this many products read and dropped by a page: a keyset position is part of the index range. */
  const MAX_DISCARDED = 1_000;

  function check(label: string, plans: PlanNode[][], assert = true, maxDiscarded = MAX_DISCARDED) {
    for (const nodes of plans) {
      const ms = nodes.find((n) => n['Execution Time'] !== undefined)?.['Execution Time'] ?? 0;
      const cost = `${discarded(nodes)} read and dropped, ${ms.toFixed(1)} ms`;
      record.push(`${label}: ${nodes.map(describeNode).join(' > ')} (${cost})`);
    }
    if (!assert) return;
    const scans = plans.flat().filter((n) => n['Node Type'] === 'Seq Scan' && n['Relation Name'] === 'products');
    expect(scans.map(describeNode), `${label} reads every product`).toEqual([]);
    for (const nodes of plans) expect(discarded(nodes), `${label} filters after the scan`).toBeLessThan(maxDiscarded);
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

  // ILIKE is not leakproof: under row-level security PostgreSQL will not use it as a condition of the
  // trigram indexes (it could run on another tenant's rows), so a search filters every product of its
  // tenant, once. Recorded with its time (docs/tenants.md has the measured cost); asserted: one pass.
  it('a search reads the products of its tenant once, whatever its length or matches, by id, by name and counted', async () => {
    // About ten products each (a whole name's three words, five digits of a sku), none, and 250.
    for (const search of ['nordic walnut desk', '04212', 'k', 'de', 'qu', 'Zen Cork']) {
      const byId = await plansOf(PAGE, { first: 20, search });
      expect(byId.products.data.length).toBeGreaterThan(0);
      const byName = await plansOf(PAGE, { first: 20, search, orderBy: [{ column: 'NAME', order: 'ASC' }] });
      expect(byName.products.data.length).toBe(byId.products.data.length);
      const counted = await plansOf(COUNTED, { search });
      for (const [label, { plans }] of [
        ['by id', byId],
        ['by name', byName],
        ['with total', counted],
      ] as const) {
        check(`search ${JSON.stringify(search)} ${label}`, plans, false);
        const passes = plans.flat().map((n) => (n['Rows Removed by Filter'] ?? 0) * (n['Actual Loops'] ?? 1));
        expect(Math.max(...passes), `search ${JSON.stringify(search)} ${label}`).toBeLessThanOrEqual(PRODUCTS);
      }
    }
  }, 120_000);

  // Last: it changes the data. One import, or migration 0017's base price of 0, gives most products one
  // value. Its update of 90,000 rows outlasts the default 30 s on a slow machine.
  it('a page inside a tie group of 90,000 products: ascending, an index range; descending, the group read at most once', async () => {
    await asSuperuser(async (admin) => {
      await admin.query(`SET session_replication_role = replica`);
      await admin.query(
        `UPDATE products SET base_price = 0, created_at = timestamptz '2026-06-01 00:00:00Z' WHERE id % 10 <> 0`,
      );
      await admin.query('ANALYZE products');
    });
    for (const column of ['BASE_PRICE', 'CREATED_AT'] as const) {
      for (const order of ['ASC', 'DESC'] as const) {
        const orderBy = [{ column, order }];
        let after: string | null = null;
        for (let i = 0; i < WALK_PAGES; i++)
          after = (await ask(PAGE, { first: WALK_PAGE_SIZE, after, orderBy })).paginatorInfo.endCursor;
        const deep = await plansOf(PAGE, { first: 20, after, orderBy });
        expect(deep.products.data).toHaveLength(20);
        const label = `${column} ${order} inside the tie group`;
        // DESC keeps ties on id ascending: the range starts at the group's first row and the position
        // inside the group is a filter (with or without row-level security), so a page reads at most the
        // group, once. ASC is one row comparison: the position is part of the range.
        check(label, deep.plans, true, order === 'ASC' ? MAX_DISCARDED : 90_000);
        // A sort here would sort the whole group for every page. Recorded, not asserted, for DESC: as the
        // service's role, PostgreSQL's generic plan for CREATED_AT DESC may read the ascending index
        // backwards and sort each run of equal values by id (an Incremental Sort) instead of reading the
        // DESC index; an open problem, in the record.
        const sorts = deep.plans.flat().filter((n) => n['Node Type'].endsWith('Sort'));
        if (order === 'ASC') expect(sorts.map(describeNode), `${label} sorts`).toEqual([]);
      }
    }
  }, 120_000);
});

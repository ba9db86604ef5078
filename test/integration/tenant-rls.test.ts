import { sql, type Kysely } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_TENANT_ID, roleBypassesIsolation, withTenant } from '../../src/platform/tenancy.ts';
import { startTestApp, type TestApp } from '../support/app.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { addHosts, atHost, createTenant, graphqlAt, loginAt, untilRouted, userAt } from '../support/tenants.ts';

// Isolation as the database enforces it, below the service's own WHERE clauses: through the service's
// role, a statement outside any tenant sees and writes nothing, one that forgets `WHERE tenant_id` sees
// its tenant's rows only, and the catalogue shows every key and policy the distribution by tenant needs.

/** Every tenant-owned table today; the catalogue checks below also cover any table added later. */
const TENANT_TABLES = [
  'users',
  'personal_access_tokens',
  'login_throttle',
  'products',
  'steps',
  'components',
  'customisations',
  'configuration_rules',
  'configurations',
] as const;

/** Tables with no tenant_id by design: the tenant directory every instance reads before it knows a tenant, and the migrator's. */
const SHARED_TABLES = ['tenants', 'tenant_hosts', 'kysely_migration', 'kysely_migration_lock'];

const onPostgres = Boolean(process.env.DATABASE_URL);

let database: TestDatabase;
let db: Kysely<any>;
let t: TestApp;
let second: string;

/** What one tenant's people do over HTTP, so that every tenant table holds rows of that tenant. */
async function populate(tenantId: string, host: string) {
  const admin = await userAt(t, tenantId, host, { isAdmin: true });
  expect((await loginAt(t.url, host, admin.email, 'not the password')).status).toBe(401);
  const created = await atHost(t.url, host, '/api/v1/tokens', {
    method: 'POST',
    token: admin.token,
    body: { name: 'integration' },
  });
  expect(created.status).toBe(201);
  const product = await graphqlAt(
    t.url,
    host,
    admin.token,
    `mutation ($input: CreateProductInput!) {
      createProduct(input: $input) { id steps { components { customisations { id } } } } }`,
    {
      input: {
        name: `Frame of ${tenantId}`,
        sku: 'FRAME',
        steps: [
          {
            name: 'Finish',
            order: 1,
            components: [
              {
                name: 'Colour',
                position: 1,
                maxSelections: 2,
                customisations: [
                  { name: 'Red', type: 'colour', price: 1 },
                  { name: 'Gold', type: 'colour', price: 2 },
                ],
              },
            ],
          },
        ],
        rules: [
          {
            kind: 'EXCLUDES',
            customisation: { stepOrder: 1, componentPosition: 1, name: 'Red' },
            other: { stepOrder: 1, componentPosition: 1, name: 'Gold' },
          },
        ],
      },
    },
  );
  expect(product.json().errors).toBeUndefined();
  const { id, steps } = product.json().data.createProduct;
  const saved = await graphqlAt(
    t.url,
    host,
    admin.token,
    'mutation ($p: ID!, $s: [SelectionInput!]!) { saveConfiguration(productId: $p, selections: $s) { id } }',
    { p: id, s: [{ customisationId: steps[0].components[0].customisations[0].id }] },
  );
  expect(saved.json().errors).toBeUndefined();
}

/** Row counts of every tenant table as the code running now sees them. */
async function visibleCounts(): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const table of TENANT_TABLES) {
    const { rows } = await sql<{ n: string }>`SELECT count(*) AS n FROM ${sql.table(table)}`.execute(db);
    counts[table] = Number(rows[0]!.n);
  }
  return counts;
}

beforeAll(async () => {
  // Nothing acts as the default tenant outside a request here: code outside withTenant has no tenant.
  database = await createTestDatabase({ seedAsDefaultTenant: false });
  db = database.handle.db;
  await addHosts(db, DEFAULT_TENANT_ID, ['one.rls.test']);
  second = (await createTenant(db, { hosts: ['two.rls.test'] })).id;
  t = await startTestApp({ database });
  await untilRouted([t], 'one.rls.test', 401);
  await untilRouted([t], 'two.rls.test', 401);
  await populate(DEFAULT_TENANT_ID, 'one.rls.test');
  await populate(second, 'two.rls.test');
});
afterAll(async () => {
  await t?.close();
  await database?.drop();
});

describe('outside any tenant, through the service role', () => {
  it('sees no row of any tenant table', async () => {
    const zero = Object.fromEntries(TENANT_TABLES.map((table) => [table, 0]));
    expect(await visibleCounts()).toEqual(zero);
    // Both tenants do have rows in every table.
    for (const tenant of [DEFAULT_TENANT_ID, second]) {
      const counts = await withTenant(tenant, visibleCounts);
      for (const table of TENANT_TABLES) expect(counts[table], `${table} of tenant ${tenant}`).toBeGreaterThan(0);
    }
  });

  it('inserts nothing, with or without a tenant_id, and updates and deletes nothing', async () => {
    const before = await withTenant(DEFAULT_TENANT_ID, visibleCounts);
    // No tenant set: the column's default, app_tenant(), is NULL, which the policy refuses (before NOT NULL).
    await expect(sql`INSERT INTO products (name, sku) VALUES ('Stray', 'STRAY-1')`.execute(db)).rejects.toThrow(
      /row-level security|null value in column "tenant_id"/,
    );
    await expect(
      sql`INSERT INTO products (tenant_id, name, sku) VALUES (${DEFAULT_TENANT_ID}, 'Stray', 'STRAY-2')`.execute(db),
    ).rejects.toThrow(/row-level security/);
    // RETURNING counts the rows touched on both back ends (PGlite reports no count for zero).
    const updated = await sql`UPDATE products SET name = 'Overwritten' RETURNING 1`.execute(db);
    expect(updated.rows).toHaveLength(0);
    for (const table of TENANT_TABLES) {
      const deleted = await sql`DELETE FROM ${sql.table(table)} RETURNING 1`.execute(db);
      expect(deleted.rows, table).toHaveLength(0);
    }
    expect(await withTenant(DEFAULT_TENANT_ID, visibleCounts)).toEqual(before);
  });
});

describe('inside a tenant, a statement that forgets WHERE tenant_id', () => {
  it("reads only its tenant's rows, in every tenant table", async () => {
    for (const tenant of [DEFAULT_TENANT_ID, second]) {
      for (const table of TENANT_TABLES) {
        const { rows } = await withTenant(tenant, () =>
          sql<{ tenant_id: string }>`SELECT tenant_id FROM ${sql.table(table)}`.execute(db),
        );
        expect(rows.length, table).toBeGreaterThan(0);
        expect(new Set(rows.map((r) => String(r.tenant_id))), table).toEqual(new Set([tenant]));
      }
    }
  });

  it.skipIf(!onPostgres)("counts what an administrator counts of that tenant's rows (PostgreSQL)", async () => {
    // The superuser of DATABASE_URL bypasses row-level security: the ground truth, per tenant.
    const url = new URL(process.env.DATABASE_URL!);
    url.pathname = new URL(database.url!).pathname;
    const admin = new pg.Client({ connectionString: url.toString() });
    await admin.connect();
    try {
      for (const tenant of [DEFAULT_TENANT_ID, second]) {
        const seen = await withTenant(tenant, visibleCounts);
        for (const table of TENANT_TABLES) {
          const { rows } = await admin.query(`SELECT count(*)::int AS n FROM ${table} WHERE tenant_id = $1`, [tenant]);
          expect(seen[table], `${table} of tenant ${tenant}`).toBe(rows[0].n);
        }
      }
    } finally {
      await admin.end();
    }
  });

  it("updates and deletes only its tenant's rows", async () => {
    const others = await withTenant(DEFAULT_TENANT_ID, visibleCounts);
    const own = await withTenant(second, visibleCounts);
    await withTenant(second, async () => {
      const renamed = await sql`UPDATE products SET name = name || ' (renamed)' RETURNING 1`.execute(db);
      expect(renamed.rows).toHaveLength(own.products!);
      const gone = await sql`DELETE FROM login_throttle RETURNING 1`.execute(db);
      expect(gone.rows).toHaveLength(own.login_throttle!);
    });
    expect(await withTenant(DEFAULT_TENANT_ID, visibleCounts)).toEqual(others);
    const names = await withTenant(DEFAULT_TENANT_ID, () =>
      sql<{ name: string }>`SELECT name FROM products`.execute(db),
    );
    for (const { name } of names.rows) expect(name).not.toMatch(/renamed/);
  });

  it("writes no row into another tenant, nor one pointing at another tenant's row", async () => {
    const foreign = await withTenant(DEFAULT_TENANT_ID, () =>
      sql<{ id: string }>`SELECT id FROM products ORDER BY id LIMIT 1`.execute(db),
    );
    const productId = foreign.rows[0]!.id;
    await withTenant(second, async () => {
      await expect(
        sql`INSERT INTO products (tenant_id, name, sku) VALUES (${DEFAULT_TENANT_ID}, 'Planted', 'PLANTED')`.execute(
          db,
        ),
      ).rejects.toThrow(/row-level security/);
      await expect(sql`UPDATE products SET tenant_id = ${DEFAULT_TENANT_ID}`.execute(db)).rejects.toThrow(
        /row-level security/,
      );
      // The foreign key holds tenant_id: a step of this tenant cannot hang under the other's product.
      await expect(
        sql`INSERT INTO steps (product_id, name, "order") VALUES (${productId}, 'Grafted', 99)`.execute(db),
      ).rejects.toThrow(/foreign key/);
    });
  });
});

interface KeyRow {
  table: string;
  name: string;
  kind: string;
  has_tenant: boolean;
  parent: string | null;
  to_parent_tenant: boolean | null;
}

describe('the catalogue', () => {
  it('lists tenant_id in every table but the shared ones, and the known tenant tables among them', async () => {
    const { rows } = await sql<{ table: string; has_tenant: boolean }>`
      SELECT c.relname AS table,
        EXISTS (SELECT 1 FROM pg_attribute a WHERE a.attrelid = c.oid AND a.attname = 'tenant_id' AND NOT a.attisdropped) AS has_tenant
      FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p')
    `.execute(db);
    const withTenantId = rows.filter((r) => r.has_tenant && r.table !== 'tenant_hosts').map((r) => r.table);
    expect(withTenantId).toEqual(expect.arrayContaining([...TENANT_TABLES]));
    const without = rows.filter((r) => !r.has_tenant).map((r) => r.table);
    for (const table of without) expect(SHARED_TABLES, `${table} has no tenant_id`).toContain(table);
  });

  it('has row-level security enabled and forced, with one policy on tenant_id, on every table with tenant_id', async () => {
    const { rows } = await sql<{
      table: string;
      enabled: boolean;
      forced: boolean;
      policies: { cmd: string; permissive: boolean; using: string | null; check: string | null }[] | string;
    }>`
      SELECT c.relname AS table, c.relrowsecurity AS enabled, c.relforcerowsecurity AS forced,
        coalesce((SELECT json_agg(json_build_object('cmd', p.polcmd, 'permissive', p.polpermissive,
            'using', pg_get_expr(p.polqual, p.polrelid), 'check', pg_get_expr(p.polwithcheck, p.polrelid)))
          FROM pg_policy p WHERE p.polrelid = c.oid), '[]') AS policies
      FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      JOIN pg_attribute a ON a.attrelid = c.oid AND a.attname = 'tenant_id' AND NOT a.attisdropped
      WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p') AND c.relname <> 'tenant_hosts'
    `.execute(db);
    expect(rows.map((r) => r.table)).toEqual(expect.arrayContaining([...TENANT_TABLES]));
    for (const row of rows) {
      expect({ table: row.table, enabled: row.enabled, forced: row.forced }).toEqual({
        table: row.table,
        enabled: true,
        forced: true,
      });
      const policies = typeof row.policies === 'string' ? JSON.parse(row.policies) : row.policies;
      expect(policies, row.table).toHaveLength(1);
      const [policy] = policies;
      expect(policy.cmd, row.table).toBe('*');
      expect(policy.permissive, row.table).toBe(true);
      for (const expression of [policy.using, policy.check]) {
        expect(expression, row.table).toMatch(/^\(?tenant_id = \(\s*SELECT app_tenant\(\) AS app_tenant\s*\)\)?$/);
      }
    }
  });

  it('has tenant_id in every primary key, unique constraint, unique index and foreign key of those tables', async () => {
    const { rows: keys } = await sql<KeyRow>`
      WITH owned AS (
        SELECT c.oid, c.relname, a.attnum FROM pg_class c
        JOIN pg_namespace n ON n.oid = c.relnamespace
        JOIN pg_attribute a ON a.attrelid = c.oid AND a.attname = 'tenant_id' AND NOT a.attisdropped
        WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p') AND c.relname <> 'tenant_hosts'
      )
      SELECT o.relname AS table, con.conname AS name, con.contype::text AS kind,
        o.attnum = ANY (con.conkey) AS has_tenant,
        con.confrelid::regclass::text AS parent,
        CASE WHEN con.contype = 'f' THEN con.confkey[array_position(con.conkey, o.attnum)] = (
          SELECT pa.attnum FROM pg_attribute pa WHERE pa.attrelid = con.confrelid AND pa.attname = 'tenant_id'
        ) END AS to_parent_tenant
      FROM owned o JOIN pg_constraint con ON con.conrelid = o.oid AND con.contype IN ('p', 'u', 'f')
      UNION ALL
      SELECT o.relname, i.indexrelid::regclass::text, 'unique index', o.attnum = ANY (i.indkey::int2[]), NULL, NULL
      FROM owned o JOIN pg_index i ON i.indrelid = o.oid AND i.indisunique
      ORDER BY 1, 2
    `.execute(db);
    const wrong: string[] = [];
    for (const key of keys) {
      if (!key.has_tenant) wrong.push(`${key.table}.${key.name} (${key.kind}) lacks tenant_id`);
      // A foreign key matches tenant_id with its parent's, except the one naming the tenant itself.
      if (key.kind === 'f' && key.parent !== 'tenants' && key.to_parent_tenant !== true)
        wrong.push(`${key.table}.${key.name} does not pair tenant_id with ${key.parent}.tenant_id`);
    }
    expect(wrong).toEqual([]);
    const kinds = (table: string) => new Set(keys.filter((k) => k.table === table).map((k) => k.kind));
    // Not vacuous: every tenant table has its primary key and unique index here, and the children their foreign keys.
    for (const table of TENANT_TABLES) {
      expect([...kinds(table)], table).toEqual(expect.arrayContaining(['p', 'unique index', 'f']));
    }
    const foreignKeys = keys.filter((k) => k.kind === 'f' && k.parent !== 'tenants').map((k) => k.name);
    expect(foreignKeys).toEqual(
      expect.arrayContaining([
        'personal_access_tokens_user_id_fkey',
        'steps_product_id_fkey',
        'components_step_id_fkey',
        'customisations_component_id_fkey',
        'configuration_rules_product_id_fkey',
        'configurations_user_id_fkey',
      ]),
    );
    expect(keys.filter((k) => k.name === 'users_email_key' || k.name === 'products_sku_key')).toHaveLength(4);
  });
});

describe('the role the service runs as', () => {
  it.skipIf(!onPostgres)('is neither a superuser nor BYPASSRLS, and owns the tables (PostgreSQL)', async () => {
    const { rows } = await sql<{ user: string; super: boolean; bypass: boolean; owns: boolean }>`
      SELECT r.rolname AS user, r.rolsuper AS super, r.rolbypassrls AS bypass,
        (SELECT bool_and(c.relowner = r.oid) FROM pg_class c WHERE c.relname IN ('users', 'products')) AS owns
      FROM pg_roles r WHERE r.rolname = current_user
    `.execute(db);
    expect(rows).toEqual([{ user: 'pcs_test_service', super: false, bypass: false, owns: true }]);
    expect(await roleBypassesIsolation(db)).toBe(false);
  });

  it.skipIf(onPostgres)('is the embedded database’s ordinary owner role, not its superuser (embedded)', async () => {
    const { rows } = await sql<{ user: string; super: boolean; bypass: boolean }>`
      SELECT r.rolname AS user, r.rolsuper AS super, r.rolbypassrls AS bypass FROM pg_roles r WHERE r.rolname = current_user
    `.execute(db);
    expect(rows).toEqual([{ user: 'pcs_service', super: false, bypass: false }]);
    expect(await roleBypassesIsolation(db)).toBe(false);
  });
});

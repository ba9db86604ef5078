import { sql, type Kysely } from 'kysely';
import { Conflict } from '../../platform/errors.ts';
import type { TenantState, TenantTables } from './tables.ts';

// The admin CLI's tenant lifecycle. `tenants` and `tenant_hosts` have no row-level security; the
// tenant-owned tables do, so their statements below must run inside withTenant(tenantId) (and name
// the tenant themselves too, as a second wall).

type Db = Kysely<TenantTables>;

const UNIQUE_VIOLATION = '23505';
const isUniqueViolation = (err: unknown) => (err as { code?: unknown }).code === UNIQUE_VIOLATION;

export async function insertTenant(db: Db, tenant: { slug: string; name: string }) {
  try {
    return await db
      .insertInto('tenants')
      .values(tenant)
      .returning(['id', 'slug', 'name', 'state', 'created_at'])
      .executeTakeFirstOrThrow();
  } catch (err) {
    if (isUniqueViolation(err)) throw new Conflict(`A tenant with slug '${tenant.slug}' already exists.`);
    throw err;
  }
}

/** Which of these hosts some tenant has already, and whose. */
export async function findHostOwners(db: Db, hosts: readonly string[]): Promise<{ host: string; slug: string }[]> {
  if (hosts.length === 0) return [];
  return db
    .selectFrom('tenant_hosts as h')
    .innerJoin('tenants as t', 't.id', 'h.tenant_id')
    .select(['h.host', 't.slug'])
    .where('h.host', 'in', hosts)
    .orderBy('h.host')
    .execute();
}

export async function insertHosts(db: Db, tenantId: string, hosts: readonly string[]): Promise<void> {
  if (hosts.length === 0) return;
  try {
    await db
      .insertInto('tenant_hosts')
      .values(hosts.map((host) => ({ host, tenant_id: tenantId })))
      .execute();
  } catch (err) {
    // Taken between the check and the insert.
    if (isUniqueViolation(err)) throw new Conflict(`One of the hosts ${hosts.join(', ')} was just taken.`);
    throw err;
  }
}

/** Returns the hosts removed (those of the list the tenant had). */
export async function deleteHosts(db: Db, tenantId: string, hosts: readonly string[]): Promise<string[]> {
  if (hosts.length === 0) return [];
  const rows = await db
    .deleteFrom('tenant_hosts')
    .where('tenant_id', '=', tenantId)
    .where('host', 'in', hosts)
    .returning('host')
    .execute();
  return rows.map((r) => r.host);
}

export async function updateTenantState(db: Db, tenantId: string, state: TenantState): Promise<void> {
  await db.updateTable('tenants').set({ state }).where('id', '=', tenantId).execute();
}

export async function countTenants(db: Db): Promise<number> {
  const row = await db
    .selectFrom('tenants')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** The tenant's own row, last; its hosts go with it (ON DELETE CASCADE). Returns how many hosts went. */
export async function deleteTenantRow(db: Db, tenantId: string): Promise<number> {
  return db.transaction().execute(async (trx) => {
    const hosts = await trx.deleteFrom('tenant_hosts').where('tenant_id', '=', tenantId).returning('host').execute();
    await trx.deleteFrom('tenants').where('id', '=', tenantId).execute();
    return hosts.length;
  });
}

/**
 * Every table with a foreign key to `tenants` other than `tenant_hosts`: the tenant-owned ones, later
 * ones included, so that deleting a tenant cannot leave a table of it behind.
 */
export async function listTenantOwnedTables(db: Db): Promise<string[]> {
  const { rows } = await sql<{ table: string }>`
    SELECT DISTINCT c.conrelid::regclass::text AS "table" FROM pg_constraint c
    WHERE c.contype = 'f' AND c.confrelid = 'tenants'::regclass AND c.conrelid <> 'tenant_hosts'::regclass
    ORDER BY 1
  `.execute(db);
  return rows.map((r) => r.table);
}

/**
 * Deletes up to `limit` rows of the tenant from `table`, highest key first (a token's children have
 * higher ids than it, so they go before it and no cascade reaches beyond the batch). Returns how many.
 * A table without the column `key` goes by ctid.
 */
export async function deleteTenantRowsBatch(
  db: Db,
  tenantId: string,
  table: string,
  key: string | undefined,
  limit: number,
): Promise<number> {
  const column = key === undefined ? sql.raw('ctid') : sql.ref(key);
  const { rows } = await sql<{ n: string }>`
    WITH gone AS (
      DELETE FROM ${sql.table(table)} WHERE tenant_id = ${tenantId} AND ${column} IN (
        SELECT ${column} FROM ${sql.table(table)} WHERE tenant_id = ${tenantId} ORDER BY ${column} DESC LIMIT ${limit}
      )
      RETURNING 1
    )
    SELECT count(*) AS n FROM gone
  `.execute(db);
  return Number(rows[0]?.n ?? 0);
}

/**
 * Fresh statistics for the catalogue before its batches: the cascade's trigger statements are planned
 * from them, and after a bulk insert (a seed, an import) stale ones made a delete of 2,000 products take
 * 281 s instead of 8 s.
 */
export async function analyzeCatalogTables(db: Db): Promise<void> {
  await sql`ANALYZE products, steps, components, customisations, configuration_rules`.execute(db);
}

export interface ProductBatchCounts {
  products: number;
  steps: number;
  components: number;
  customisations: number;
  configuration_rules: number;
}

/**
 * Deletes the tenant's next products, as many as keep the rows removed near `maxRows` (each product
 * counts with its tree, by the sizes its triggers keep; one product always goes, however large), and
 * with them, by cascade, their steps, components, customisations and rules: one transaction, counted
 * before the delete. Deleting the children first instead would recount the product after every batch.
 */
export async function deleteProductBatch(
  db: Db,
  tenantId: string,
  maxRows: number,
  maxProducts: number,
): Promise<ProductBatchCounts> {
  return db.transaction().execute(async (trx) => {
    const { rows: batch } = await sql<{ id: string }>`
      SELECT id FROM (
        SELECT id, sum(1 + step_count + component_count + customisation_count) OVER (ORDER BY id) AS upto,
          1 + step_count + component_count + customisation_count AS size
        FROM products WHERE tenant_id = ${tenantId} ORDER BY id LIMIT ${maxProducts}
      ) p WHERE upto - size < ${maxRows}
    `.execute(trx);
    const ids = batch.map((r) => r.id);
    if (ids.length === 0) return { products: 0, steps: 0, components: 0, customisations: 0, configuration_rules: 0 };
    const { rows } = await sql<Record<keyof ProductBatchCounts, string>>`
      WITH s AS (SELECT id FROM steps WHERE tenant_id = ${tenantId} AND product_id = ANY(${ids}::bigint[])),
        c AS (SELECT id FROM components WHERE tenant_id = ${tenantId} AND step_id IN (SELECT id FROM s))
      SELECT
        (SELECT count(*) FROM s) AS steps,
        (SELECT count(*) FROM c) AS components,
        (SELECT count(*) FROM customisations WHERE tenant_id = ${tenantId} AND component_id IN (SELECT id FROM c))
          AS customisations,
        (SELECT count(*) FROM configuration_rules WHERE tenant_id = ${tenantId} AND product_id = ANY(${ids}::bigint[]))
          AS configuration_rules
    `.execute(trx);
    await sql`DELETE FROM products WHERE tenant_id = ${tenantId} AND id = ANY(${ids}::bigint[])`.execute(trx);
    const counts = rows[0]!;
    return {
      products: ids.length,
      steps: Number(counts.steps),
      components: Number(counts.components),
      customisations: Number(counts.customisations),
      configuration_rules: Number(counts.configuration_rules),
    };
  });
}

import pg from 'pg';
import { sql } from 'kysely';
import { loadConfig } from '../../src/config.ts';
import type { Database } from '../../src/modules/index.ts';
import { createAuthService } from '../../src/modules/auth/index.ts';
import { createPostgresDatabase } from '../../src/platform/db.ts';
import { createLogger } from '../../src/platform/logger.ts';
import { migrateToLatest } from '../../src/platform/migrate.ts';
import { withTenant } from '../../src/platform/tenancy.ts';
import { seedCatalog } from '../../db/seeds/catalog.ts';
import { ensureServiceRole } from '../lib/scratch-database.ts';
import { BENCH_SEED } from '../lib/dataset.ts';

// The tenant bench's databases: owned by an ordinary role, which the service runs as, so row-level
// security applies as deployed. The catalogue is the bench's (5 steps x 4 components x 3 customisations a
// product), split over the tenants; each tenant has a user and, for the run, a token.

/** The bench service's role: neither superuser nor BYPASSRLS. */
export const BENCH_ROLE = 'pcs_bench';
const TOKEN_NAME = 'bench-tenants';
const logger = createLogger('silent');

export interface BenchTenant {
  /** The Host requests carry; null: none (no tenant has a host, every request is the default tenant's). */
  host: string | null;
  token: string;
  productIds: string[];
}

export interface TenantSet {
  name: string;
  dbName: string;
  /** As the service connects: the bench role. */
  url: string;
  tenants: BenchTenant[];
}

export interface TenantSetSpec {
  name: string;
  dbName: string;
  tenants: number;
  productsEach: number;
  hosts: boolean;
  /** A database of the same catalogue to copy instead of seeding it again. */
  copyOf?: string;
}

const urlOf = (adminUrl: string, dbName: string, user?: string) => {
  const url = new URL(adminUrl);
  url.pathname = `/${dbName}`;
  if (user) {
    url.username = user;
    url.password = '';
  }
  return url.toString();
};

/** A superuser's session on the database: it sees every tenant's rows (row-level security does not bind it). */
async function asAdmin<T>(adminUrl: string, dbName: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: urlOf(adminUrl, dbName) });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

async function ensureDatabase(adminUrl: string, spec: TenantSetSpec, log: (line: string) => void) {
  await asAdmin(adminUrl, 'postgres', async (admin) => {
    const { rowCount } = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [spec.dbName]);
    if (rowCount) return;
    const template = spec.copyOf ? ` TEMPLATE ${spec.copyOf}` : '';
    await admin.query(`CREATE DATABASE ${spec.dbName}${template} OWNER ${BENCH_ROLE}`);
    log(`created database ${spec.dbName}${template ? ` as a copy of ${spec.copyOf}` : ''}`);
  });
}

/** Tenants 2..n (slugs bench-0002…) and, when asked for, a host for every tenant (t0001.bench.example…). */
async function ensureTenants(admin: pg.Client, spec: TenantSetSpec): Promise<void> {
  await admin.query(
    `INSERT INTO tenants (slug, name) SELECT 'bench-' || lpad(i::text, 4, '0'), 'Bench ' || i
     FROM generate_series(2, $1::int) i ON CONFLICT (slug) DO NOTHING`,
    [spec.tenants],
  );
  if (!spec.hosts) return;
  await admin.query(
    `INSERT INTO tenant_hosts (host, tenant_id)
     SELECT 't' || lpad(id::text, 4, '0') || '.bench.example', id FROM tenants ON CONFLICT (host) DO NOTHING`,
  );
}

/** Creates, migrates and seeds the set's database when it is not yet, and issues a token in every tenant. */
export async function prepareTenantSet(
  adminUrl: string,
  spec: TenantSetSpec,
  log: (line: string) => void,
): Promise<TenantSet> {
  await ensureServiceRole(adminUrl, BENCH_ROLE);
  await ensureDatabase(adminUrl, spec, log);
  const url = urlOf(adminUrl, spec.dbName, BENCH_ROLE);
  const database = createPostgresDatabase<Database>({ databaseUrl: url, poolSize: 4, logger, statementTimeoutMs: 0 });
  const { db } = database;
  try {
    await migrateToLatest(db);
    await asAdmin(adminUrl, spec.dbName, (admin) => ensureTenants(admin, spec));
    const counts = await asAdmin(adminUrl, spec.dbName, async (admin) => {
      const { rows } = await admin.query<{ id: string; products: number }>(
        `SELECT t.id::text AS id, (SELECT count(*)::int FROM products p WHERE p.tenant_id = t.id) AS products
         FROM tenants t ORDER BY t.id LIMIT $1`,
        [spec.tenants],
      );
      return rows;
    });
    const short = counts.filter((t) => t.products < spec.productsEach);
    if (short.length > 0) {
      log(`${spec.name}: seeding ${spec.productsEach} products in each of ${short.length} tenant(s)...`);
      for (const [i, t] of short.entries()) {
        await withTenant(t.id, () =>
          seedCatalog(db, { products: spec.productsEach, seed: BENCH_SEED, batchSize: 500 }),
        );
        if ((i + 1) % 100 === 0) log(`  ${i + 1}/${short.length}`);
      }
      await sql`VACUUM ANALYZE`.execute(db);
    }
    const auth = createAuthService({ db, config: loadConfig({ DATABASE_URL: url, LOG_LEVEL: 'silent' }).auth, logger });
    const tenants: BenchTenant[] = [];
    for (const { id } of counts) {
      tenants.push(await withTenant(id, () => benchTenant(db, auth, spec, id)));
    }
    return { name: spec.name, dbName: spec.dbName, url, tenants };
  } finally {
    await database.close();
  }
}

async function benchTenant(
  db: ReturnType<typeof createPostgresDatabase<Database>>['db'],
  auth: ReturnType<typeof createAuthService>,
  spec: TenantSetSpec,
  id: string,
): Promise<BenchTenant> {
  const email = 'bench@bench.invalid';
  // Nobody logs in: a hash no password has, and no argon2 run for each of a thousand tenants.
  await sql`
    INSERT INTO users (name, email, password_hash) VALUES ('Benchmark', ${email}, '!')
    ON CONFLICT (tenant_id, email) DO NOTHING
  `.execute(db);
  const user = (await auth.findUser(email))!;
  const token = await auth.issueToken(user.id, TOKEN_NAME);
  const { rows } = await sql<{
    id: string;
  }>`SELECT id::text AS id FROM products ORDER BY id LIMIT ${spec.productsEach}`.execute(db);
  const host = spec.hosts ? `t${id.padStart(4, '0')}.bench.example` : null;
  return { host, token, productIds: rows.map((r) => r.id) };
}

/** The run's tokens, in every tenant at once. */
export async function revokeBenchTokens(adminUrl: string, set: TenantSet): Promise<void> {
  await asAdmin(adminUrl, set.dbName, (admin) =>
    admin.query('DELETE FROM personal_access_tokens WHERE name = $1', [TOKEN_NAME]),
  );
}

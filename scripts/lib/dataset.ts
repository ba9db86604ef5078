import pg from 'pg';
import { sql, type Kysely } from 'kysely';
import { loadConfig } from '../../src/config.ts';
import type { Database } from '../../src/modules/index.ts';
import { createAuthService } from '../../src/modules/auth/index.ts';
import { createPostgresDatabase } from '../../src/platform/db.ts';
import { createLogger } from '../../src/platform/logger.ts';
import { migrateToLatest } from '../../src/platform/migrate.ts';
import { DEFAULT_TENANT_ID, withTenant } from '../../src/platform/tenancy.ts';
import { seedCatalog } from '../../db/seeds/catalog.ts';

/** Fixed so that every run, on every machine, benchmarks the same catalogue. */
export const BENCH_SEED = 20261122;
export const BENCH_EMAIL = 'bench@bench.invalid';

export interface DatasetUser {
  email: string;
  name: string;
  /** Set (or reset) to this on every run; without it a random one nobody ever sees. */
  password?: string;
  /** The name of the token issued for the run, as `npm run admin` lists it. */
  tokenName?: string;
}
const BENCH_USER: DatasetUser = { email: BENCH_EMAIL, name: 'Benchmark' };

const logger = createLogger('silent');

/** CREATE DATABASE when absent; returns true when it had to be created. */
export async function ensureDatabase(url: string): Promise<boolean> {
  const target = new URL(url);
  const name = decodeURIComponent(target.pathname.slice(1));
  if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`Refusing unusual database name ${JSON.stringify(name)}`);
  const admin = new URL(url);
  admin.pathname = '/postgres';
  const client = new pg.Client({ connectionString: admin.toString() });
  await client.connect();
  try {
    const { rowCount } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (rowCount) return false;
    await client.query(`CREATE DATABASE ${name}`);
    return true;
  } finally {
    await client.end();
  }
}

export interface Dataset {
  productIds: string[];
  /** A bearer token per user asked for, in that order, fresh for this run (revoke them with revokeToken). */
  tokens: { token: string; tokenId: string }[];
  seededNow: number;
  seedMs: number;
}

/**
 * Migrates, seeds `products` products (each 5 steps x 4 components x 3
 * customisations) with BENCH_SEED when fewer are there, and issues a token to
 * each user (created when absent). Reseeding is idempotent: generated skus collide and are skipped.
 */
export async function prepareDataset(
  url: string,
  products: number,
  log: (line: string) => void,
  users: readonly DatasetUser[] = [BENCH_USER],
): Promise<Dataset> {
  // Bulk work: seeding batches and the VACUUM ANALYZE of a 100,000-product catalogue outlast the
  // service's statement timeout, so none here (0, as for migrations).
  const database = createPostgresDatabase<Database>({ databaseUrl: url, poolSize: 2, logger, statementTimeoutMs: 0 });
  const { db } = database;
  try {
    await migrateToLatest(db);
    // The bench's catalogue, users and tokens are the default tenant's (hosts play no part here).
    const dataset = await withTenant(DEFAULT_TENANT_ID, () => seedDefaultTenant(db, products, log, users, url));
    // Sets the visibility map too, so index-only scans skip the heap as on a settled database. Outside any
    // tenant: VACUUM runs alone, not behind the tenant's setting.
    if (dataset.seededNow > 0) await sql`VACUUM ANALYZE`.execute(db);
    return dataset;
  } finally {
    await database.close();
  }
}

async function seedDefaultTenant(
  db: Kysely<Database>,
  products: number,
  log: (line: string) => void,
  users: readonly DatasetUser[],
  url: string,
): Promise<Dataset> {
  const have = Number(
    (await sql<{ n: string }>`SELECT count(*) AS n FROM products WHERE sku LIKE ${`S${BENCH_SEED}-%`}`.execute(db))
      .rows[0]!.n,
  );
  let seededNow = 0;
  const started = Date.now();
  if (have < products) {
    log(`seeding ${products} products (have ${have}) with seed ${BENCH_SEED}...`);
    seededNow = await seedCatalog(db, {
      products,
      seed: BENCH_SEED,
      batchSize: 500,
      onProgress: (done, total) => {
        if (done % 2000 === 0 || done === total) log(`  ${done}/${total}`);
      },
    });
  }
  const seedMs = Date.now() - started;
  // The first `products` products of the bench seed, in id order: the request
  // generator picks ids and cursors among these.
  const { rows } = await sql<{ id: string }>`
      SELECT id FROM products WHERE sku LIKE ${`S${BENCH_SEED}-%`} ORDER BY id LIMIT ${products}
    `.execute(db);

  const config = loadConfig({ DATABASE_URL: url, LOG_LEVEL: 'silent' });
  const auth = createAuthService({ db, config: config.auth, logger });
  const tokens = [];
  for (const { email, name, password, tokenName = 'bench' } of users) {
    let user = await auth.findUser(email);
    if (!user) {
      // Nobody logs in with it unless a password was asked for: a random one is never shown.
      const secret = password ?? `${crypto.randomUUID()}${crypto.randomUUID()}`;
      user = await auth.createUser({ name, email, password: secret, isAdmin: false });
    } else if (password !== undefined) {
      await auth.setPassword(user.id, password);
    }
    const token = await auth.issueToken(user.id, tokenName);
    tokens.push({ token, tokenId: token.split('|')[0]! });
  }
  return { productIds: rows.map((r) => String(r.id)), tokens, seededNow, seedMs };
}

export async function revokeToken(url: string, tokenId: string): Promise<void> {
  const database = createPostgresDatabase<Database>({ databaseUrl: url, poolSize: 1, logger });
  try {
    const config = loadConfig({ DATABASE_URL: url, LOG_LEVEL: 'silent' });
    const auth = createAuthService({ db: database.db, config: config.auth, logger });
    await withTenant(DEFAULT_TENANT_ID, () => auth.revokeToken(tokenId));
  } finally {
    await database.close();
  }
}

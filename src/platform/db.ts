import fs from 'node:fs/promises';
import path from 'node:path';
import { Kysely, PostgresDialect, type LogEvent } from 'kysely';
import pg from 'pg';
import type { AuthTables } from '../modules/auth/tables.ts';
import type { CatalogTables } from '../modules/catalog/tables.ts';
import { lockDataDir } from './data-dir-lock.ts';
import type { Logger } from './logger.ts';
import { withPreparedStatements } from './prepared.ts';

export type Database = AuthTables & CatalogTables;
export type Db = Kysely<Database>;

/** Called once per SQL statement sent; tests count statements with it, metrics time them. */
export type QueryObserver = (event: { sql: string; durationMs: number; failed: boolean }) => void;

export interface DatabaseHandle {
  db: Db;
  /** 'postgres' (DATABASE_URL) or 'embedded' (PGlite under DATA_DIR). */
  kind: 'postgres' | 'embedded';
  close(): Promise<void>;
}

export interface DatabaseOptions {
  databaseUrl: string | undefined;
  dataDir: string;
  poolSize: number;
  logger: Logger;
  onQuery?: QueryObserver | undefined;
}

// pg's and PGlite's OIDs for int8 and numeric: both back ends hand these over as
// strings so that ids and prices never pass through a lossy float on the way in.
const INT8_OID = 20;
const NUMERIC_OID = 1700;

function queryLogger(onQuery: QueryObserver | undefined) {
  return (event: LogEvent) =>
    onQuery?.({ sql: event.query.sql, durationMs: event.queryDurationMillis, failed: event.level === 'error' });
}

/** PGlite options shared by every embedded instance (the server's and the tests'). */
export const PGLITE_OPTIONS = {
  parsers: { [INT8_OID]: (v: string) => v, [NUMERIC_OID]: (v: string) => v },
};

export function createPostgresDatabase(options: {
  databaseUrl: string;
  poolSize: number;
  logger: Logger;
  onQuery?: QueryObserver | undefined;
}): DatabaseHandle {
  const pool = new pg.Pool({
    connectionString: options.databaseUrl,
    max: options.poolSize,
    connectionTimeoutMillis: 5_000,
    idleTimeoutMillis: 30_000,
  });
  // Without a listener, an idle client dropped by the server emits 'error' on
  // the pool and takes the whole process down.
  pool.on('error', (err) => options.logger.warn({ err: { message: err.message } }, 'idle database connection lost'));
  const db = new Kysely<Database>({
    dialect: new PostgresDialect({ pool: withPreparedStatements(pool) }),
    log: queryLogger(options.onQuery),
  });
  return { db, kind: 'postgres', close: () => db.destroy() };
}

/** Wraps an open PGlite instance; Kysely serialises access to its single connection. */
export async function createPGliteDatabase(
  pglite: import('@electric-sql/pglite').PGlite,
  onQuery?: QueryObserver,
): Promise<DatabaseHandle> {
  const { PGliteDialect } = await import('kysely-pglite-dialect');
  const db = new Kysely<Database>({ dialect: new PGliteDialect(pglite), log: queryLogger(onQuery) });
  return { db, kind: 'embedded', close: () => db.destroy() };
}

/** PostgreSQL when a URL is configured; otherwise PGlite persisted under dataDir/pglite. */
export async function createDatabase(options: DatabaseOptions): Promise<DatabaseHandle> {
  if (options.databaseUrl) return createPostgresDatabase({ ...options, databaseUrl: options.databaseUrl });
  // Loaded only when used: the WASM module costs memory a PostgreSQL deployment never needs.
  const { PGlite } = await import('@electric-sql/pglite');
  const dir = path.join(options.dataDir, 'pglite');
  await fs.mkdir(dir, { recursive: true });
  // One process at a time: a second PGlite on the same files would corrupt them.
  const unlock = await lockDataDir(options.dataDir);
  try {
    const handle = await createPGliteDatabase(await PGlite.create(dir, PGLITE_OPTIONS), options.onQuery);
    return { ...handle, close: () => handle.close().finally(unlock) };
  } catch (err) {
    await unlock();
    throw err;
  }
}

import fs from 'node:fs/promises';
import path from 'node:path';
import { Kysely, PostgresDialect, sql, type LogEvent } from 'kysely';
import pg from 'pg';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import type { Config } from '../config.ts';
import { lockDataDir } from './data-dir-lock.ts';
import type { Logger } from './logger.ts';
import { assertStatementMayRun } from './abort.ts';
import { listenPGlite, listenPostgres, type ChangeFeed, type ListenOptions } from './notifications.ts';
import { useServiceRole } from './embedded-role.ts';
import { createPoolAdapter } from './pg-pool.ts';
import { createReplicaRouter, type ReplicaRouter } from './replicas.ts';
import { createRoutedPool, type PoolLike } from './routed-pool.ts';
import { currentTenant, TENANT_SETTING } from './tenancy.ts';

/** Called once per SQL statement sent; tests count statements (and explain them) with it, metrics time them. */
export type QueryObserver = (event: {
  sql: string;
  parameters: readonly unknown[];
  durationMs: number;
  failed: boolean;
}) => void;

export interface DatabaseHandle<DB = any> {
  db: Kysely<DB>;
  kind: 'postgres' | 'embedded';
  observeQueries(observer: QueryObserver): () => void;
  poolStats?(): { total: number; idle: number; waiting: number };
  /** The read replicas, when configured (PostgreSQL only). */
  replicas?: ReplicaRouter<PoolLike>;
  /** Notifications on these channels; `url` (PostgreSQL only) listens through another address than the pool's. */
  listen(channels: readonly string[], options: ListenOptions & { url?: string | undefined }): Promise<ChangeFeed>;
  close(): Promise<void>;
}

export interface DatabaseOptions {
  databaseUrl: string | undefined;
  dataDir: string;
  poolSize: number;
  logger: Logger;
  connectTimeoutMs?: number | undefined;
  statementTimeoutMs?: number | undefined;
  replicaUrls?: readonly string[] | undefined;
  replicaMaxLagMs?: number | undefined;
  preparedStatements?: boolean | undefined;
}

export function databaseOptions(
  config: Config['database'],
  logger: Logger,
  overrides: Partial<DatabaseOptions> = {},
): DatabaseOptions {
  return {
    databaseUrl: config.url,
    dataDir: config.dataDir,
    poolSize: config.poolSize,
    connectTimeoutMs: config.connectTimeoutMs,
    statementTimeoutMs: config.statementTimeoutMs,
    replicaUrls: config.replicaUrls,
    replicaMaxLagMs: config.replicaMaxLagMs,
    preparedStatements: config.preparedStatements,
    logger,
    ...overrides,
  };
}

// int8 and numeric stay strings on both back ends: ids and prices never pass through a lossy float.
const INT8_OID = 20;
const NUMERIC_OID = 1700;

function queryObservers() {
  const observers = new Set<QueryObserver>();
  return {
    log(event: LogEvent) {
      const e = {
        sql: event.query.sql,
        parameters: event.query.parameters,
        durationMs: event.queryDurationMillis,
        failed: event.level === 'error',
      };
      for (const observer of observers) observer(e);
    },
    observeQueries(observer: QueryObserver) {
      observers.add(observer);
      return () => void observers.delete(observer);
    },
  };
}

export const DEFAULT_CONNECT_TIMEOUT_MS = 2_000;
export const DEFAULT_STATEMENT_TIMEOUT_MS = 2_000;
export const DEFAULT_REPLICA_MAX_LAG_MS = 1_000;
/** pg's own wall-clock connect timeout, as a multiple of the connect timeout requests wait by. */
const PG_BACKSTOP_FACTOR = 5;

export const PGLITE_OPTIONS = {
  // Loaded at start: the migrations `create extension` it (search's trigram index).
  extensions: { pg_trgm },
  parsers: { [INT8_OID]: (v: string) => v, [NUMERIC_OID]: (v: string) => v },
};

export interface PostgresOptions {
  databaseUrl: string;
  poolSize: number;
  logger: Logger;
  connectTimeoutMs?: number | undefined;
  statementTimeoutMs?: number | undefined;
  /** Hot standbys of databaseUrl for reads (replicas.ts); none: every statement runs on the primary. */
  replicaUrls?: readonly string[] | undefined;
  replicaMaxLagMs?: number | undefined;
  /** false: statements sent unnamed, for a transaction-mode pooler without prepared-statement support. */
  preparedStatements?: boolean | undefined;
}

/** How often the standbys' replay positions and the primary's are read. */
const REPLICA_POLL_MS = 200;

/** pg's pool for one server, behind the adapter (named statements, aborts, loop-aware timeouts). */
function createServerPool(url: string, options: PostgresOptions) {
  const statementTimeoutMs = options.statementTimeoutMs ?? DEFAULT_STATEMENT_TIMEOUT_MS;
  const connectTimeoutMs = options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
  const pool = new pg.Pool({
    connectionString: url,
    max: options.poolSize,
    // The connect timeout requests wait by is the adapter's, counted in free event-loop time (pg-pool.ts). pg's,
    // in wall-clock time, is only the backstop that frees a pool slot from a server that accepts and never answers.
    connectionTimeoutMillis: connectTimeoutMs * PG_BACKSTOP_FACTOR,
    idleTimeoutMillis: 30_000,
    // 0 turns it off (migrations), with the adapter's read timeout.
    ...(statementTimeoutMs > 0 ? { statement_timeout: statementTimeoutMs } : {}),
    keepAlive: true,
  });
  // Without a listener, an idle client dropped by the server takes the whole process down.
  pool.on('error', (err) => options.logger.warn({ err: { message: err.message } }, 'idle database connection lost'));
  // pg-pool drops its own listener while a client is checked out; a connection cut mid-query would kill the
  // process, while the query itself still fails (503).
  pool.on('connect', (client) => client.on('error', () => {}));
  // The client-side read timeout, a little after the server's statement timeout, catches a network that never answers.
  const adapter = createPoolAdapter(
    pool,
    { connectMs: connectTimeoutMs, readMs: statementTimeoutMs > 0 ? statementTimeoutMs + 250 : undefined },
    options.preparedStatements ?? true,
  );
  return { pool, adapter };
}

export function createPostgresDatabase<DB = any>(options: PostgresOptions): DatabaseHandle<DB> {
  const { pool, adapter } = createServerPool(options.databaseUrl, options);
  const replicaUrls = options.replicaUrls ?? [];
  const router =
    replicaUrls.length > 0
      ? createReplicaRouter<PoolLike>({
          primaryUrl: options.databaseUrl,
          replicas: replicaUrls.map((url) => ({ url, pool: createServerPool(url, options).adapter })),
          maxLagMs: options.replicaMaxLagMs ?? DEFAULT_REPLICA_MAX_LAG_MS,
          pollMs: REPLICA_POLL_MS,
          logger: options.logger,
        })
      : undefined;
  const observers = queryObservers();
  const routed = router ? createRoutedPool(adapter, router) : adapter;
  const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool: routed }), log: observers.log });
  return {
    db,
    kind: 'postgres',
    observeQueries: observers.observeQueries,
    poolStats: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
    ...(router && { replicas: router }),
    listen: async (channels, { url, ...listenOptions }) =>
      listenPostgres(url ?? options.databaseUrl, channels, listenOptions),
    close: async () => {
      router?.close();
      await db.destroy();
      await Promise.all(router?.targets().map((t) => t.pool.end()) ?? []);
    },
  };
}

/** Wraps an open PGlite instance; Kysely serialises access to its single connection. */
export async function createPGliteDatabase(pglite: import('@electric-sql/pglite').PGlite): Promise<DatabaseHandle> {
  const { PGliteDialect } = await import('kysely-pglite-dialect');
  const observers = queryObservers();
  await useServiceRole(pglite);
  // One session, used by one caller at a time (the dialect queues them): the tenant is a session setting,
  // changed only when the caller's differs from the last one's.
  let sessionTenant: string | undefined;
  // What the dialect calls of PGlite, with aborted requests' statements refused (abort.ts).
  const client = {
    query: async (sqlText: string, parameters?: unknown[]) => {
      assertStatementMayRun(sqlText);
      const tenant = currentTenant() ?? '';
      if (tenant !== sessionTenant) {
        await pglite.query(`SELECT set_config('${TENANT_SETTING}', $1, false)`, [tenant]);
        sessionTenant = tenant;
      }
      return pglite.query(sqlText, parameters);
    },
    close: () => pglite.close(),
  } as unknown as typeof pglite;
  const db = new Kysely<any>({ dialect: new PGliteDialect(client), log: observers.log });
  return {
    db,
    kind: 'embedded',
    observeQueries: observers.observeQueries,
    listen: (channels, { logger }) =>
      listenPGlite(pglite, channels, logger, (channel, payload) =>
        sql`SELECT pg_notify(${channel}, ${payload})`.execute(db),
      ),
    close: () => db.destroy(),
  };
}

export async function createDatabase<DB = any>(options: DatabaseOptions): Promise<DatabaseHandle<DB>> {
  if (options.databaseUrl) return createPostgresDatabase({ ...options, databaseUrl: options.databaseUrl });
  // Loaded only when used: the WASM module costs memory a PostgreSQL deployment never needs.
  const { PGlite } = await import('@electric-sql/pglite');
  const dir = path.join(options.dataDir, 'pglite');
  await fs.mkdir(dir, { recursive: true });
  const unlock = await lockDataDir(options.dataDir);
  try {
    const handle = await createPGliteDatabase(await PGlite.create(dir, PGLITE_OPTIONS));
    return { ...handle, close: () => handle.close().finally(unlock) };
  } catch (err) {
    await unlock();
    throw err;
  }
}

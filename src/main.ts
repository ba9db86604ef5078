import cluster from 'node:cluster';
import { setTimeout as sleep } from 'node:timers/promises';
import { NO_USER_HINT, seedDemoIfEmpty } from '../db/seeds/demo.ts';
import { countUsers } from './modules/auth/index.ts';
import { createApp, type App } from './app.ts';
import { ConfigError, loadConfig, type Config } from './config.ts';
import { joinCluster, runPrimary } from './platform/cluster.ts';
import type { Database } from './modules/index.ts';
import { createDatabase, databaseOptions, type DatabaseHandle } from './platform/db.ts';
import { isDatabaseUnavailable } from './platform/db-errors.ts';
import { createLogger, type Logger } from './platform/logger.ts';
import { migrateToLatest } from './platform/migrate.ts';
import { DEFAULT_TENANT_ID, roleBypassesIsolation, withTenant } from './platform/tenancy.ts';

// The only file that listens. With WEB_CONCURRENCY > 1 this process is the cluster's primary (platform/cluster.ts),
// which migrates once; each worker runs the rest of main() without migrating.

const RETRY_DELAYS_MS = [250, 500, 1_000, 2_000];

function prettyLogsAvailable(): boolean {
  try {
    import.meta.resolve('pino-pretty');
    return true;
  } catch {
    return false;
  }
}

/**
 * Migrations get a connection without the request statement timeout: a long index build must not be cut short
 * and retried forever. False when shutdown began first.
 */
async function migrateWhenReachable(
  config: Config['database'],
  logger: Logger,
  database: DatabaseHandle | undefined,
  isStopping: () => boolean,
  afterMigrations?: () => Promise<void>,
): Promise<boolean> {
  const migrationDatabase =
    database?.kind === 'embedded'
      ? database
      : await createDatabase(
          databaseOptions(config, logger, {
            // A session of its own: the migrator's advisory lock is a session lock, which a transaction-mode
            // pooler would release on another server connection, or never.
            databaseUrl: config.listenUrl ?? config.url,
            poolSize: 1,
            statementTimeoutMs: 0,
            replicaUrls: [],
          }),
        );
  for (let attempt = 0; !isStopping(); attempt++) {
    try {
      const migrations = await migrateToLatest(migrationDatabase.db);
      for (const m of migrations.results ?? [])
        logger.info({ migration: m.migrationName, status: m.status }, 'migration');
      await afterMigrations?.();
      break;
    } catch (err) {
      if (isStopping()) return false;
      // A broken migration will not fix itself: stop, and let the deployment fail loudly.
      if (!isDatabaseUnavailable(err)) throw err;
      const delay = RETRY_DELAYS_MS[Math.min(attempt, RETRY_DELAYS_MS.length - 1)]!;
      logger.warn(
        { err: { message: (err as Error).message }, attempt: attempt + 1, retryInMs: delay },
        'database not reachable; retrying',
      );
      await sleep(delay);
    }
  }
  if (migrationDatabase !== database) await migrationDatabase.close();
  return !isStopping();
}

function readConfig(): Config {
  try {
    return loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(err.message);
      process.exit(78); // EX_CONFIG
    }
    throw err;
  }
}

/** SIGTERM and SIGINT drain the app, then close the database; says whether a stop has begun. */
function stopOnSignals(app: App, database: DatabaseHandle<Database>, config: Config, logger: Logger): () => boolean {
  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) {
      logger.info({ signal }, 'already shutting down');
      return;
    }
    stopping = true;
    logger.info({ signal, timeoutMs: config.runtime.shutdownTimeoutMs }, 'shutting down');
    // Should closing the pool hang past the drain, do not wait for SIGKILL.
    setTimeout(() => {
      logger.error('shutdown did not finish in time');
      process.exit(1);
    }, config.runtime.shutdownTimeoutMs + 5_000).unref();
    app
      .close()
      .then(() => database.close())
      .then(() => {
        logger.info('stopped');
        process.exit(0);
      })
      .catch((err: unknown) => {
        logger.error({ err }, 'shutdown failed');
        process.exit(1);
      });
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  return () => stopping;
}

/** Once migrated: the demo on an empty embedded database, or how to get in on a database without users. */
async function welcome(config: Config, database: DatabaseHandle<Database>, app: App): Promise<void> {
  if (database.kind === 'postgres' && (await roleBypassesIsolation(database.db))) {
    app.logger.warn(
      'the database role is a superuser or has BYPASSRLS: customer companies are not isolated by the database (docs/tenants.md, "The database role")',
    );
  }
  await withTenant(DEFAULT_TENANT_ID, () => welcomeDefaultTenant(config, database, app));
}

async function welcomeDefaultTenant(config: Config, database: DatabaseHandle<Database>, app: App): Promise<void> {
  const demo =
    database.kind === 'embedded'
      ? await seedDemoIfEmpty(database.db, app.modules.auth.service, config.catalog.currency)
      : null;
  // A PostgreSQL database is never seeded behind its operator's back: say how to get in instead.
  if (!demo && (await countUsers(database.db)) === 0) process.stdout.write(NO_USER_HINT);
  if (demo) {
    // Printed once, on the first start of an empty embedded database; never logged.
    process.stdout.write(
      `\nEmbedded database created in ${config.database.dataDir} with a demo catalogue.\n` +
        `Demo login (shown only this once):\n  email:    ${demo.email}\n  password: ${demo.password}\n\n`,
    );
  }
}

async function main(): Promise<void> {
  const config = readConfig();
  const pretty = config.runtime.nodeEnv === 'development' && process.stdout.isTTY === true && prettyLogsAvailable();
  const url = `http://${config.http.host.includes(':') ? `[${config.http.host}]` : config.http.host}:${config.http.port}`;
  const announce = () => process.stdout.write(`GraphiQL: ${url}/graphql   REST: ${url}/api/v1/login\n`);
  const clustered = config.runtime.workers > 1;
  if (clustered && cluster.isPrimary) {
    // Several processes write to one stdout: every line says which one wrote it.
    const logger = createLogger(config.logging.level, undefined, { pretty }).child({ pid: process.pid });
    runPrimary({
      workers: config.runtime.workers,
      logger,
      shutdownTimeoutMs: config.runtime.shutdownTimeoutMs,
      migrate: (isStopping) => migrateWhenReachable(config.database, logger, undefined, isStopping),
      onReady() {
        logger.info({ workers: config.runtime.workers }, 'ready');
        announce();
      },
    });
    return;
  }
  const baseLogger = createLogger(config.logging.level, undefined, { pretty });
  const logger = clustered ? baseLogger.child({ pid: process.pid }) : baseLogger;
  const worker = clustered ? joinCluster(logger) : undefined;
  const database = await createDatabase<Database>(databaseOptions(config.database, logger));

  // Listen first, ready later: a database down at start must not become a crash loop. Until migrations are
  // applied, /health is 200 and everything else 503.
  const app = await createApp(config, { logger, database, starting: true, metricsExposition: worker?.metrics.text });
  worker?.metrics.share(app.metrics.registry);
  await new Promise<void>((resolve, reject) => {
    app.server.once('error', reject);
    app.server.listen(config.http.port, config.http.host, () => resolve());
  });
  logger.info({ url, database: database.kind }, 'listening');

  const isStopping = stopOnSignals(app, database, config, logger);

  if (worker) {
    await worker.serving;
    if (isStopping()) return;
    app.lifecycle.markServing();
    logger.info('ready');
    return;
  }

  const migrated = await migrateWhenReachable(config.database, logger, database, isStopping, () =>
    welcome(config, database, app),
  );
  if (!migrated) return;
  app.lifecycle.markServing();
  logger.info('ready');
  announce();
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});

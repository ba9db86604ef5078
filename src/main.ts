import { setTimeout as sleep } from 'node:timers/promises';
import { seedDemoIfEmpty } from '../db/seeds/demo.ts';
import { createApp } from './app.ts';
import { ConfigError, loadConfig } from './config.ts';
import { createDatabase } from './platform/db.ts';
import { isDatabaseUnavailable } from './platform/db-errors.ts';
import { createLogger } from './platform/logger.ts';
import { migrateToLatest } from './platform/migrate.ts';

// config → database → createApp → listen → (migrate, then serve); signals. The only file that listens.

/** Waits between attempts to reach a database that is not there yet: quick at first, then every few seconds. */
const RETRY_DELAYS_MS = [250, 500, 1_000, 2_000];

function prettyLogsAvailable(): boolean {
  try {
    import.meta.resolve('pino-pretty');
    return true;
  } catch {
    return false;
  }
}

async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(err.message);
      process.exit(78); // EX_CONFIG
    }
    throw err;
  }
  const pretty = config.nodeEnv === 'development' && process.stdout.isTTY === true && prettyLogsAvailable();
  const logger = createLogger(config.logLevel, undefined, { pretty });
  const database = await createDatabase({
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    poolSize: config.databasePoolSize,
    connectTimeoutMs: config.databaseConnectTimeoutMs,
    statementTimeoutMs: config.databaseStatementTimeoutMs,
    logger,
  });

  // Listen first, ready later: a database that is down at start (a failover, or
  // the database starting alongside us) must not turn into a crash loop. Until
  // migrations are applied, /health is 200, /ready 503 and everything else 503.
  const app = await createApp(config, { logger, database, starting: true });
  const url = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${config.port}`;
  await new Promise<void>((resolve, reject) => {
    app.server.once('error', reject);
    app.server.listen(config.port, config.host, () => resolve());
  });
  logger.info({ url, database: database.kind }, 'listening');

  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) {
      logger.info({ signal }, 'already shutting down');
      return;
    }
    stopping = true;
    logger.info({ signal, timeoutMs: config.shutdownTimeoutMs }, 'shutting down');
    // Should closing the pool hang past the drain, do not wait for SIGKILL.
    setTimeout(() => {
      logger.error('shutdown did not finish in time');
      process.exit(1);
    }, config.shutdownTimeoutMs + 5_000).unref();
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

  // On PostgreSQL, migrations get a connection of their own without the request
  // statement timeout: a long index build must not be cut short (and retried forever).
  const migrationDatabase =
    database.kind === 'postgres'
      ? await createDatabase({
          databaseUrl: config.databaseUrl,
          dataDir: config.dataDir,
          poolSize: 1,
          connectTimeoutMs: config.databaseConnectTimeoutMs,
          statementTimeoutMs: 0,
          logger,
        })
      : database;
  for (let attempt = 0; !stopping; attempt++) {
    try {
      const migrations = await migrateToLatest(migrationDatabase.db);
      for (const m of migrations.results ?? []) logger.info({ migration: m.migrationName, status: m.status }, 'migration');
      if (database.kind === 'embedded') {
        const demo = await seedDemoIfEmpty(database.db, app.auth);
        if (demo) {
          // Printed once, on the first start of an empty embedded database; never logged.
          process.stdout.write(
            `\nEmbedded database created in ${config.dataDir} with a demo catalogue.\n` +
              `Demo login (shown only this once):\n  email:    ${demo.email}\n  password: ${demo.password}\n\n`,
          );
        }
      }
      break;
    } catch (err) {
      if (stopping) return;
      // A broken migration will not fix itself: stop, and let the deployment fail loudly.
      if (!isDatabaseUnavailable(err)) throw err;
      const delay = RETRY_DELAYS_MS[Math.min(attempt, RETRY_DELAYS_MS.length - 1)]!;
      logger.warn({ err: { message: (err as Error).message }, attempt: attempt + 1, retryInMs: delay }, 'database not reachable; retrying');
      await sleep(delay);
    }
  }
  if (migrationDatabase !== database) await migrationDatabase.close();
  if (stopping) return;
  app.lifecycle.markServing();
  logger.info('ready');
  process.stdout.write(`GraphiQL: ${url}/graphql   REST: ${url}/api/v1/login\n`);
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});

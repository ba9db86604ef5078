import { seedDemoIfEmpty } from '../db/seeds/demo.ts';
import { createApp } from './app.ts';
import { ConfigError, loadConfig } from './config.ts';
import { createDatabase } from './platform/db.ts';
import { createLogger } from './platform/logger.ts';
import { migrateToLatest } from './platform/migrate.ts';

// config → database → migrate → createApp → listen; signals. The only file that listens.

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
  const logger = createLogger(config.logLevel);
  const database = await createDatabase({
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    poolSize: config.databasePoolSize,
    logger,
  });
  const migrations = await migrateToLatest(database.db);
  for (const m of migrations.results ?? []) logger.info({ migration: m.migrationName, status: m.status }, 'migration');

  const app = await createApp(config, { logger, database });
  const url = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${config.port}`;

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

  await new Promise<void>((resolve, reject) => {
    app.server.once('error', reject);
    app.server.listen(config.port, config.host, () => resolve());
  });
  logger.info({ url, database: database.kind }, 'listening');
  process.stdout.write(`GraphiQL: ${url}/graphql   REST: ${url}/api/v1/login\n`);

  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    app
      .close()
      .then(() => database.close())
      .then(() => process.exit(0))
      .catch((err: unknown) => {
        logger.error({ err }, 'shutdown failed');
        process.exit(1);
      });
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});

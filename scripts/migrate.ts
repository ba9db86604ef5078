import { migrateToLatest } from '../src/platform/migrate.ts';
import { parseCommandLine, runCli } from './lib/cli.ts';
import { loadConfig } from '../src/config.ts';
import { createDatabaseIfMissing, describeTarget, withDatabase } from './lib/database.ts';

// npm run db:migrate: creates the configured PostgreSQL database when it is missing, then applies every
// pending migration to it.

runCli(async () => {
  parseCommandLine(process.argv.slice(2), {});
  const config = loadConfig();
  if (config.database.url && (await createDatabaseIfMissing(config.database.url))) {
    process.stdout.write(`Created ${describeTarget(config.database)}\n`);
  }
  await withDatabase(async ({ database, target }) => {
    process.stdout.write(`Migrating ${target}\n`);
    const result = await migrateToLatest(database.db);
    const applied = (result.results ?? []).filter((r) => r.status === 'Success');
    for (const r of applied) process.stdout.write(`  applied ${r.migrationName}\n`);
    process.stdout.write(
      applied.length === 0
        ? 'Database is up to date.\n'
        : `Applied ${applied.length} migration${applied.length === 1 ? '' : 's'}.\n`,
    );
  });
});

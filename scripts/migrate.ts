import { migrateToLatest } from '../src/platform/migrate.ts';
import { parseCommandLine, runCli } from './lib/cli.ts';
import { withDatabase } from './lib/database.ts';

// npm run db:migrate: applies every pending migration to the configured database.

runCli(async () => {
  parseCommandLine(process.argv.slice(2), {});
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

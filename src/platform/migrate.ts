import fs from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Migrator, type Kysely, type Migration, type MigrationProvider, type MigrationResultSet } from 'kysely';

export const MIGRATIONS_DIR = fileURLToPath(new URL('../../db/migrations', import.meta.url));

// Kysely's FileMigrationProvider, but import() runs from here, through the app's loader (tsx, vitest): no build step.
const fileProvider: MigrationProvider = {
  async getMigrations() {
    const files = (await fs.readdir(MIGRATIONS_DIR))
      .filter((f) => /\.(ts|js|mjs)$/.test(f) && !f.endsWith('.d.ts'))
      .sort();
    const migrations: Record<string, Migration> = {};
    for (const file of files) {
      const module = (await import(pathToFileURL(path.join(MIGRATIONS_DIR, file)).href)) as Migration;
      migrations[file.replace(/\.(ts|js|mjs)$/, '')] = module;
    }
    return migrations;
  },
};

function createMigrator(db: Kysely<any>): Migrator {
  return new Migrator({ db, provider: fileProvider });
}

/** One transaction behind an advisory lock: concurrent starts apply each migration once; a failure leaves nothing. */
export async function migrateToLatest(db: Kysely<any>): Promise<MigrationResultSet> {
  const result = await createMigrator(db).migrateToLatest();
  if (result.error) {
    const failed = result.results?.find((r) => r.status === 'Error');
    // eslint-disable-next-line @typescript-eslint/no-base-to-string -- a thrown non-Error: its text is all there is
    const reason = result.error instanceof Error ? result.error.message : String(result.error);
    // The cause tells a caller whether the database was away (retry) or a migration is broken (stop).
    throw new Error(`Migration ${failed?.migrationName ?? '(setup)'} failed: ${reason}`, { cause: result.error });
  }
  return result;
}

export async function hasPendingMigrations(db: Kysely<any>): Promise<boolean> {
  const migrations = await createMigrator(db).getMigrations();
  return migrations.some((m) => m.executedAt === undefined);
}

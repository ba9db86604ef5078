import fs from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { FileMigrationProvider, Migrator, type Kysely, type MigrationResultSet } from 'kysely';

export const MIGRATIONS_DIR = fileURLToPath(new URL('../../db/migrations', import.meta.url));

function createMigrator(db: Kysely<any>): Migrator {
  return new Migrator({
    db,
    provider: new FileMigrationProvider({ fs, path, migrationFolder: MIGRATIONS_DIR }),
  });
}

/**
 * Applies every pending migration. Kysely's Migrator runs them in one
 * transaction behind a PostgreSQL advisory lock, so two processes starting at
 * once apply each migration exactly once and a failure leaves nothing half-done.
 */
export async function migrateToLatest(db: Kysely<any>): Promise<MigrationResultSet> {
  const result = await createMigrator(db).migrateToLatest();
  if (result.error) {
    const failed = result.results?.find((r) => r.status === 'Error');
    const reason = result.error instanceof Error ? result.error.message : String(result.error);
    throw new Error(`Migration ${failed?.migrationName ?? '(setup)'} failed: ${reason}`);
  }
  return result;
}

/** True when every migration on disk has been applied; /ready asks this. */
export async function hasPendingMigrations(db: Kysely<any>): Promise<boolean> {
  const migrations = await createMigrator(db).getMigrations();
  return migrations.some((m) => m.executedAt === undefined);
}

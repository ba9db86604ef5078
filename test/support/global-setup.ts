import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import type { TestProject } from 'vitest/node';
import { createPGliteDatabase, createPostgresDatabase, PGLITE_OPTIONS } from '../../src/platform/db.ts';
import { createLogger } from '../../src/platform/logger.ts';
import { migrateToLatest } from '../../src/platform/migrate.ts';
import { ensureBuilt } from '../../scripts/lib/start-command.ts';
import { createScratchDatabase } from '../../scripts/lib/scratch-database.ts';

/**
 * Migrates one template database per run; every test file then gets its own
 * copy (CREATE DATABASE … TEMPLATE on PostgreSQL, a data-dir dump on PGlite), so
 * files run in parallel on freshly migrated databases without migrating each time.
 */

declare module 'vitest' {
  export interface ProvidedContext {
    testDatabase: { kind: 'postgres'; adminUrl: string; template: string } | { kind: 'embedded'; dumpFile: string };
  }
}

const logger = createLogger('silent');

export default async function setup(project: TestProject) {
  // Tests that start the real process run dist/, as `npm start` does.
  ensureBuilt();
  const url = process.env.DATABASE_URL;
  if (url) {
    const scratch = await createScratchDatabase(url, `pcs_template_${randomBytes(4).toString('hex')}`);
    const { admin, name: template } = scratch;
    const handle = createPostgresDatabase({ databaseUrl: scratch.url, poolSize: 1, logger });
    await migrateToLatest(handle.db);
    await handle.close();
    project.provide('testDatabase', { kind: 'postgres', adminUrl: url, template });
    return async () => {
      // Test files drop their own copies; a crashed file's copy goes with this sweep.
      const { rows } = await admin.query<{ datname: string }>(`SELECT datname FROM pg_database WHERE datname LIKE $1`, [
        `${template}%`,
      ]);
      for (const { datname } of rows.filter((r) => r.datname !== template)) {
        await admin.query(`DROP DATABASE IF EXISTS ${datname} WITH (FORCE)`);
      }
      await scratch.drop();
    };
  }

  const { PGlite } = await import('@electric-sql/pglite');
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'pcs-test-'));
  const pglite = await PGlite.create(PGLITE_OPTIONS);
  const handle = await createPGliteDatabase(pglite);
  await migrateToLatest(handle.db);
  const dump = await pglite.dumpDataDir('none');
  await handle.close();
  const dumpFile = path.join(dir, 'template.tar');
  await fs.writeFile(dumpFile, Buffer.from(await dump.arrayBuffer()));
  project.provide('testDatabase', { kind: 'embedded', dumpFile });
  return () => fs.rm(dir, { recursive: true, force: true });
}

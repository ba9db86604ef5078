import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import type { ProvidedContext } from 'vitest';
import type { TestProject } from 'vitest/node';
import { createPGliteDatabase, createPostgresDatabase, PGLITE_OPTIONS } from '../../src/platform/db.ts';
import { loadConfig } from '../../src/config.ts';
import { createLogger } from '../../src/platform/logger.ts';
import { migrateToLatest } from '../../src/platform/migrate.ts';
import { ensureBuilt } from '../../scripts/lib/start-command.ts';
import { createScratchDatabase, ensureServiceRole } from '../../scripts/lib/scratch-database.ts';
import { skippedNotice } from './skipped.ts';

/**
 * Migrates one template database per run; every test file then gets its own
 * copy (CREATE DATABASE … TEMPLATE on PostgreSQL, a data-dir dump on PGlite), so
 * files run in parallel on freshly migrated databases without migrating each time.
 * The integration projects (vitest.config.ts) share the one template; the unit
 * project lists no set-up, so it builds nothing and needs no database.
 */

declare module 'vitest' {
  export interface ProvidedContext {
    testDatabase:
      | {
          kind: 'postgres';
          /** Where databases are created, migrated and dropped, and notifications listened for: the server itself. */
          adminUrl: string;
          /** DATABASE_URL: where the service's pool connects, perhaps through a pooler. */
          serviceUrl: string;
          template: string;
          owner: string;
          preparedStatements: boolean;
        }
      | { kind: 'embedded'; dumpFile: string };
  }
}

const logger = createLogger('silent');

/** The role the suite's service runs as: neither superuser nor BYPASSRLS. */
const SERVICE_ROLE = 'pcs_test_service';

type TestDatabaseInfo = ProvidedContext['testDatabase'];
interface Template {
  info: TestDatabaseInfo;
  drop(): Promise<void>;
}

// Vitest loads a project's global set-up in a module of that project's own, so the projects
// that list this file meet on globalThis; the last one to tear down drops the template.
const SHARED = Symbol.for('pcs.test-template');
type Shared = { users: number; template: Promise<Template> };
const registry = globalThis as { [SHARED]?: Shared };

export default async function setup(project: TestProject) {
  const shared = (registry[SHARED] ??= { users: 0, template: createTemplate() });
  shared.users++;
  const template = await shared.template;
  project.provide('testDatabase', template.info);
  return async () => {
    if (--shared.users > 0) return;
    delete registry[SHARED];
    await template.drop();
    // Last, after vitest's summary: what was skipped here and why.
    const notice = skippedNotice();
    if (notice) process.stdout.write(`\n${notice}\n`);
  };
}

async function createTemplate(): Promise<Template> {
  // Tests that start the real process run dist/, as `npm start` does.
  ensureBuilt();
  const serviceUrl = process.env.DATABASE_URL;
  if (serviceUrl) {
    // Past a transaction-mode pooler, CREATE DATABASE … TEMPLATE would find the pooler's idle connections
    // on the template, and LISTEN would hear nothing: both go to the server directly (docs/testing.md).
    const url = process.env.TEST_DIRECT_DATABASE_URL || serviceUrl;
    // The service runs as an ordinary role owning its database, as deployed: row-level security binds it.
    await ensureServiceRole(url, SERVICE_ROLE);
    const scratch = await createScratchDatabase(url, `pcs_template_${randomBytes(4).toString('hex')}`, {
      owner: SERVICE_ROLE,
    });
    const { admin, name: template } = scratch;
    const handle = createPostgresDatabase({ databaseUrl: scratch.url, poolSize: 1, logger });
    await migrateToLatest(handle.db);
    await handle.close();
    const drop = async () => {
      // Test files drop their own copies; a crashed file's copy goes with this sweep.
      const { rows } = await admin.query<{ datname: string }>(`SELECT datname FROM pg_database WHERE datname LIKE $1`, [
        `${template}%`,
      ]);
      for (const { datname } of rows.filter((r) => r.datname !== template)) {
        await admin.query(`DROP DATABASE IF EXISTS ${datname} WITH (FORCE)`);
      }
      await scratch.drop();
    };
    const { preparedStatements } = loadConfig({
      DATABASE_PREPARED_STATEMENTS: process.env.DATABASE_PREPARED_STATEMENTS,
    }).database;
    const info = {
      kind: 'postgres',
      adminUrl: url,
      serviceUrl,
      template,
      owner: SERVICE_ROLE,
      preparedStatements,
    } as const;
    return { info, drop };
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
  return { info: { kind: 'embedded', dumpFile }, drop: () => fs.rm(dir, { recursive: true, force: true }) };
}

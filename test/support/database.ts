import fs from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { inject } from 'vitest';
import {
  createPGliteDatabase,
  createPostgresDatabase,
  PGLITE_OPTIONS,
  type DatabaseHandle,
} from '../../src/platform/db.ts';
import { createLogger } from '../../src/platform/logger.ts';
import { actOutsideTenantsAs, DEFAULT_TENANT_ID } from '../../src/platform/tenancy.ts';
import { createScratchDatabase } from '../../scripts/lib/scratch-database.ts';

const TENANT_DIRECTORY_RELOAD = /^select [^;]* from "(tenants" order by "id|tenant_hosts" order by "host)"$/;

/** Every SQL statement the app sends, for statement-count assertions; with its parameters, to explain it. */
export class QueryLog {
  statements: string[] = [];
  sent: { sql: string; parameters: readonly unknown[] }[] = [];
  record = (event: { sql: string; parameters: readonly unknown[] }) => {
    // The tenant directory's reload, once every two seconds at most without notifications: no request's own.
    if (TENANT_DIRECTORY_RELOAD.test(event.sql)) return;
    this.statements.push(event.sql);
    this.sent.push({ sql: event.sql, parameters: event.parameters });
  };
  reset() {
    this.statements = [];
    this.sent = [];
  }
  get count() {
    return this.statements.length;
  }
}

export interface TestDatabase {
  handle: DatabaseHandle;
  queries: QueryLog;
  /** A connection string when the back end is a PostgreSQL server (for tests that need a second pool). */
  url: string | undefined;
  drop(): Promise<void>;
}

/** A freshly migrated database of its own for one test file. */
export async function createTestDatabase(
  options: { statementTimeoutMs?: number; seedAsDefaultTenant?: boolean } = {},
): Promise<TestDatabase> {
  const info = inject('testDatabase');
  // Most files seed and inspect the default tenant's rows directly; the isolation tests opt out.
  actOutsideTenantsAs(options.seedAsDefaultTenant === false ? undefined : DEFAULT_TENANT_ID);
  const queries = new QueryLog();
  if (info.kind === 'postgres') {
    const scratch = await createScratchDatabase(info.adminUrl, `${info.template}_${randomBytes(4).toString('hex')}`, {
      template: info.template,
      owner: info.owner,
    });
    // The service's pool goes where DATABASE_URL points (a pooler, perhaps), as the database's owner.
    const url = new URL(info.serviceUrl);
    url.pathname = `/${scratch.name}`;
    url.username = info.owner;
    url.password = '';
    const handle = createPostgresDatabase({
      databaseUrl: url.toString(),
      poolSize: 10,
      statementTimeoutMs: options.statementTimeoutMs,
      preparedStatements: info.preparedStatements,
      logger: createLogger('silent'),
    });
    // Notifications are listened for on the server itself, as DATABASE_LISTEN_URL does behind a pooler.
    const listen = handle.listen;
    handle.listen = (channels, listenOptions) =>
      listen(channels, { ...listenOptions, url: listenOptions.url ?? scratch.url });
    handle.observeQueries(queries.record);
    return {
      handle,
      queries,
      url: url.toString(),
      async drop() {
        await handle.close();
        await scratch.drop();
      },
    };
  }
  const { PGlite } = await import('@electric-sql/pglite');
  const dump = new Blob([await fs.readFile(info.dumpFile)]);
  const pglite = await PGlite.create({ ...PGLITE_OPTIONS, loadDataDir: dump });
  const handle = await createPGliteDatabase(pglite);
  handle.observeQueries(queries.record);
  return { handle, queries, url: undefined, drop: () => handle.close() };
}

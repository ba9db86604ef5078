import { parseArgs } from 'node:util';
import { sql } from 'kysely';
import { seedCatalog } from '../../db/seeds/catalog.ts';
import { createApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import type { Database } from '../../src/modules/index.ts';
import { createDatabase, databaseOptions } from '../../src/platform/db.ts';
import { createLogger } from '../../src/platform/logger.ts';
import { migrateToLatest } from '../../src/platform/migrate.ts';
import { withTenant } from '../../src/platform/tenancy.ts';
import { createScratchDatabase, ensureServiceRole } from '../lib/scratch-database.ts';

/**
 * The stage `npm run loadtest -- --tenants` plays on, on this machine: a scratch PostgreSQL database
 * owned by an ordinary role (row-level security binds it, as in a deployment), two customer companies
 * with a host and a seeded catalogue each, and the service listening on --port. Prints the load test's
 * command line with every token, then serves until interrupted, and drops the database.
 *
 *   npx tsx scripts/loadtest/tenants-stage.ts [--admin-url postgres://postgres@127.0.0.1:5432/postgres]
 *     [--port 4900] [--products 2000]
 *
 * steady (host calm.example.org): one reader. storm (host loud.example.org): three users of three
 * tokens each (so the per-token, per-user and per-company caps can all be reached) and an administrator
 * for its catalogue writes. The service's settings come from the environment, as for `npm start`.
 */

const { values: opts } = parseArgs({
  options: {
    'admin-url': { type: 'string', default: 'postgres://postgres@127.0.0.1:5432/postgres' },
    port: { type: 'string', default: '4900' },
    products: { type: 'string', default: '2000' },
  },
});

const ROLE = 'pcs_loadtest_service';
const NAME = 'pcs_loadtest_tenants';
const log = (line: string) => process.stderr.write(`${line}\n`);

async function main(): Promise<void> {
  await ensureServiceRole(opts['admin-url'], ROLE);
  const scratch = await createScratchDatabase(opts['admin-url'], NAME, { replace: true, owner: ROLE });
  const config = loadConfig({ ...process.env, DATABASE_URL: scratch.url, PORT: opts.port, LOG_LEVEL: 'warn' });
  const logger = createLogger('warn', process.stderr);
  // Seeding runs statements longer than a request may: the CLI's timeout, on a handle of its own.
  const seeding = await createDatabase<Database>(
    databaseOptions(config.database, logger, { statementTimeoutMs: config.database.cliStatementTimeoutMs }),
  );
  await migrateToLatest(seeding.db);
  const db = seeding.db;

  const tenants: Record<string, string> = {};
  for (const [slug, host] of [
    ['steady', 'calm.example.org'],
    ['storm', 'loud.example.org'],
  ] as const) {
    const { rows } = await sql<{ id: string }>`
      INSERT INTO tenants (slug, name) VALUES (${slug}, ${slug}) RETURNING id::text AS id
    `.execute(db);
    tenants[slug] = rows[0]!.id;
    await sql`INSERT INTO tenant_hosts (host, tenant_id) VALUES (${host}, ${rows[0]!.id})`.execute(db);
    log(`seeding ${opts.products} products for ${slug} ...`);
    await withTenant(rows[0]!.id, () =>
      seedCatalog(db, { products: Number(opts.products), seed: 20261127, concurrency: 2 }),
    );
  }

  await seeding.close();

  const database = await createDatabase<Database>(databaseOptions(config.database, logger));
  const app = await createApp(config, { database, logger });
  await new Promise<void>((resolve) => app.server.listen(Number(opts.port), '127.0.0.1', resolve));
  const auth = app.modules.auth.service;
  const tokensOf = (tenant: string, email: string, isAdmin: boolean, count: number) =>
    withTenant(tenant, async () => {
      const user = await auth.createUser({ name: email, email, password: `stage-${email}-password`, isAdmin });
      const tokens: string[] = [];
      for (let i = 0; i < count; i++) tokens.push(await auth.issueToken(user.id, `loadtest ${i}`));
      return tokens;
    });
  const [reader] = await tokensOf(tenants['steady']!, 'reader@steady.example.org', false, 1);
  const storm: string[] = [];
  for (let u = 1; u <= 3; u++) storm.push(...(await tokensOf(tenants['storm']!, `u${u}@storm.example.org`, false, 3)));
  const [editor] = await tokensOf(tenants['storm']!, 'admin@storm.example.org', true, 1);

  const url = `http://127.0.0.1:${opts.port}`;
  process.stdout.write(
    `npm run loadtest -- --tenants --url ${url} --host calm.example.org --token '${reader}' \\\n` +
      `  --storm-host loud.example.org --storm-tokens '${storm.join(',')}' --storm-write-token '${editor}'\n`,
  );
  log('serving; Ctrl-C stops the service and drops the database');
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  await app.close();
  await database.close();
  await scratch.drop();
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});

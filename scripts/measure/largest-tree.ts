import os from 'node:os';
import { parseArgs } from 'node:util';
import { loadConfig } from '../../src/config.ts';
import { largestTree } from '../lib/largest-tree.ts';
import { startMeasuredService } from '../lib/measured-service.ts';
import type { Database } from '../../src/modules/index.ts';
import { createDatabase, databaseOptions } from '../../src/platform/db.ts';
import { createLogger } from '../../src/platform/logger.ts';
import { migrateToLatest } from '../../src/platform/migrate.ts';
import { createScratchDatabase } from '../lib/scratch-database.ts';

/**
 * npm run measure:largest-tree [-- --runs N]: the largest product tree the configured limits accept
 * (CATALOG_MAX_* settings: every per-product total at its limit), written through GraphQL on a scratch
 * PostgreSQL database: createProduct, upsertProduct creating it, and upsertProduct changing every price.
 * Prints the milliseconds of each against DATABASE_STATEMENT_TIMEOUT_MS: each write must finish well inside it.
 */

const { values } = parseArgs({ options: { runs: { type: 'string', default: '3' } } });
const runs = Number(values.runs);
const adminUrl = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
const scratch = await createScratchDatabase(adminUrl, 'pcs_measure_largest_tree', { replace: true });

const config = loadConfig({
  ...process.env,
  DATABASE_URL: scratch.url,
  LOG_LEVEL: 'warn',
  PORT: '0',
  RESPONSE_CACHE_MAX_ENTRIES: '0',
});
const { steps, componentsPerStep, customisationsPerComponent, tree: largest } = largestTree(config.catalog.writeLimits);
const tree = (sku: string, price: (i: number) => number) =>
  largest(sku, ({ index }) => ({ type: 'colour', price: price(index) }));

const database = await createDatabase<Database>(
  databaseOptions(config.database, createLogger('warn', process.stderr), { poolSize: 4 }),
);
let exitCode = 0;
try {
  await migrateToLatest(database.db);
  // The statement timeout bounds each statement, not the request: the longest one is the figure that must fit.
  let longest = { ms: 0, sql: '' };
  database.observeQueries((event) => {
    if (event.durationMs > longest.ms)
      longest = { ms: event.durationMs, sql: event.sql.replace(/\s+/g, ' ').slice(0, 60) };
  });
  const { app, base, token } = await startMeasuredService(config, database, 'measure-largest-tree-password');

  async function timed(query: string, input: unknown): Promise<number> {
    const start = performance.now();
    const res = await fetch(`${base}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ query, variables: { input } }),
    });
    const body = (await res.json()) as { errors?: unknown[] };
    const ms = performance.now() - start;
    if (res.status !== 200 || body.errors)
      throw new Error(`${res.status} ${JSON.stringify(body.errors).slice(0, 500)}`);
    return ms;
  }

  const create = 'mutation ($input: CreateProductInput!) { createProduct(input: $input) { id } }';
  const upsert = 'mutation ($input: UpsertProductInput!) { upsertProduct(input: $input) { id } }';
  const rows = { create: [] as number[], upsertNew: [] as number[], upsertRepriced: [] as number[] };
  for (let run = 0; run < runs; run++) {
    rows.create.push(
      await timed(
        create,
        tree(`create-${run}`, (i) => (i % 1000) / 10),
      ),
    );
    rows.upsertNew.push(
      await timed(
        upsert,
        tree(`upsert-${run}`, (i) => (i % 1000) / 10),
      ),
    );
    rows.upsertRepriced.push(
      await timed(
        upsert,
        tree(`upsert-${run}`, (i) => (i % 1000) / 10 + 1),
      ),
    );
  }
  await app.close();

  const total = steps * componentsPerStep * customisationsPerComponent;
  const bytes = JSON.stringify(tree('x', () => 1)).length;
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const show = (xs: number[]) => `median ${median(xs).toFixed(0)} ms, max ${Math.max(...xs).toFixed(0)} ms`;
  const limit = config.database.statementTimeoutMs;
  console.log(
    `largest tree: ${steps} steps x ${componentsPerStep} components x ${customisationsPerComponent} customisations ` +
      `(${steps * componentsPerStep} components, ${total} customisations, ${(bytes / 1024).toFixed(0)} KB of input); ` +
      `${os.cpus().length} CPUs, Node ${process.version}, ${runs} runs`,
  );
  console.log(`createProduct:                     ${show(rows.create)}`);
  console.log(`upsertProduct (creates):           ${show(rows.upsertNew)}`);
  console.log(`upsertProduct (every price moved): ${show(rows.upsertRepriced)}`);
  console.log(`longest statement:                 ${longest.ms.toFixed(0)} ms (${longest.sql}…)`);
  console.log(`statement timeout:                 ${limit} ms; load average ${os.loadavg()[0]!.toFixed(1)}`);
  if (longest.ms > limit / 2) {
    console.log(`a statement took over half the statement timeout: too close`);
    exitCode = 1;
  }
} finally {
  await database.close();
  await scratch.drop();
}
process.exitCode = exitCode;

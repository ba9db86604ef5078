/**
 * Measures the embedded database (PGlite) as the service uses it: creating a
 * fresh database under a temporary DATA_DIR, reopening it, and sequential
 * nested-product reads through the catalog's loaders. The figures in docs/embedded-database.md for
 * the embedded back end come from this script:  npx tsx scripts/measure/embedded.ts
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { seedCatalog } from '../../db/seeds/catalog.ts';
import { createCatalogLoaders } from '../../src/modules/catalog/tools.ts';
import type { Database } from '../../src/modules/index.ts';
import { createDatabase } from '../../src/platform/db.ts';
import { createLogger } from '../../src/platform/logger.ts';
import { migrateToLatest } from '../../src/platform/migrate.ts';
import { actOutsideTenantsAs, DEFAULT_TENANT_ID } from '../../src/platform/tenancy.ts';

// A measurement of one company: what this script seeds and reads directly is the default tenant's.
actOutsideTenantsAs(DEFAULT_TENANT_ID);

const READS = 500;
const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'pcs-measure-'));
const logger = createLogger('silent');
const open = () => createDatabase<Database>({ databaseUrl: undefined, dataDir, poolSize: 1, logger });

try {
  let t = performance.now();
  const created = await open();
  await migrateToLatest(created.db);
  const createMs = performance.now() - t;
  await seedCatalog(created.db, { products: 100, seed: 1 });
  await created.close();

  t = performance.now();
  const reopened = await open();
  const reopenMs = performance.now() - t;

  t = performance.now();
  for (let i = 0; i < READS; i++) {
    // A request's loaders: one statement a tree level, as a nested products query makes.
    const loaders = createCatalogLoaders(reopened.db);
    const id = String((i % 100) + 1);
    await loaders.productsById.load(id);
    const steps = await loaders.stepsByProductId.load(id);
    const components = (await Promise.all(steps.map((s) => loaders.componentsByStepId.load(s.id)))).flat();
    await Promise.all(components.map((c) => loaders.customisationsByComponentId.load(c.id)));
  }
  const readMs = performance.now() - t;
  await reopened.close();

  console.log(`machine: ${os.cpus().length} cores, ${os.cpus()[0]?.model ?? '?'}, Node ${process.version}`);
  console.log(`create + migrate a new embedded database: ${createMs.toFixed(0)} ms`);
  console.log(`reopen it:                                ${reopenMs.toFixed(0)} ms`);
  console.log(
    `nested product reads (4 statements each): ${READS} in ${readMs.toFixed(0)} ms = ` +
      `${((READS * 1000) / readMs).toFixed(0)} products/s, ${((READS * 4 * 1000) / readMs).toFixed(0)} statements/s`,
  );
} finally {
  await fs.rm(dataDir, { recursive: true, force: true });
}

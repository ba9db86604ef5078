import { parseCommandLine, parseWholeNumber, runCli, usageError } from './lib/cli.ts';

// The generator and the database are imported when a seed runs, not for --help or a usage error: they pull
// in the catalogue module and the drivers, seconds of start-up on a busy machine (BENCHMARKS.md).

const USAGE = `Usage: npm run db:seed -- --products N [--seed S] [--batch-size B] [--tenant T]
       npm run db:seed -- --demo [--tenant T]

Inserts N generated products (each 5 steps x 4 components x 3 customisations) into the configured
database, migrating it first if needed. The same seed always yields the same products;
seeding again with the same seed inserts nothing (their skus exist already).

  --products N     how many products (required, at least 1)
  --seed S         generator seed, 0..2147483647 (default 1)
  --batch-size B   products per transaction (default 500)
  --demo           on an empty database, what npm start gives a new embedded one: the demo
                   catalogue (52 products, the demo desk 51 and wallet 52 among them) and an
                   administrator demo@example.com whose generated password is printed once
  --tenant T       the slug of the tenant (customer company) seeded (default: default)
`;

// Products per transaction. A batch is four INSERT ... SELECT unnest(...) statements
// (products, steps, components, customisations), so round trips are already
// negligible at 500 (30,000 customisations per statement); 500 to 2,500 measured
// the same here, and smaller batches redraw the progress line more often.
const DEFAULT_BATCH_SIZE = 500;
// Batches in flight on PostgreSQL; withDatabase's pool holds two connections.
const SEED_CONNECTIONS = 2;

runCli(async () => {
  const { values } = parseCommandLine(process.argv.slice(2), {
    products: { type: 'string' },
    seed: { type: 'string' },
    'batch-size': { type: 'string' },
    demo: { type: 'boolean' },
    help: { type: 'boolean', short: 'h' },
    // Spelt out (not lib/database.ts's TENANT_OPTION): that module loads the drivers, and --help must not.
    tenant: { type: 'string', default: 'default' },
  });
  if (values.help) {
    process.stdout.write(USAGE);
    return;
  }
  if (values.demo) {
    if (values.products !== undefined) throw usageError(`--demo takes no --products.\n\n${USAGE}`);
    return seedDemo(values.tenant);
  }
  if (values.products === undefined) throw usageError(`--products is required.\n\n${USAGE}`);
  const products = parseWholeNumber('--products', values.products, { min: 1, max: Number.MAX_SAFE_INTEGER });
  // The generator mixes seed and index in 32 bits; a larger seed would alias a smaller one.
  const seed = values.seed === undefined ? 1 : parseWholeNumber('--seed', values.seed, { min: 0, max: 2 ** 31 - 1 });
  const batchSize =
    values['batch-size'] === undefined
      ? DEFAULT_BATCH_SIZE
      : parseWholeNumber('--batch-size', values['batch-size'], { min: 1, max: 100_000 });

  const { seedCatalog } = await import('../db/seeds/catalog.ts');
  const { withTenantDatabase } = await import('./lib/database.ts');
  await withTenantDatabase(values.tenant, async (ctx) => {
    process.stdout.write(`Seeding ${products} products with seed ${seed} into ${ctx.target}\n`);
    const progress = createProgress(products);
    const started = process.hrtime.bigint();
    const inserted = await seedCatalog(ctx.database.db, {
      products,
      seed,
      batchSize,
      // The embedded database has one connection: batches would only queue for it.
      concurrency: ctx.database.kind === 'postgres' ? SEED_CONNECTIONS : 1,
      onProgress: progress.update,
    });
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    progress.done();
    const skipped = products - inserted;
    process.stdout.write(
      `Inserted ${inserted} products in ${seconds.toFixed(2)} s (${Math.round(inserted / seconds)} products/s)` +
        (skipped > 0 ? `; ${skipped} already existed (same seed) and were left as they were.` : '.') +
        '\n',
    );
  });
});

/** The embedded first start's demo, on any database, but only an empty one (the user is an administrator). */
async function seedDemo(tenant: string): Promise<number> {
  const { seedDemoIfEmpty } = await import('../db/seeds/demo.ts');
  const { createAuthService } = await import('../src/modules/auth/index.ts');
  const { withTenantDatabase } = await import('./lib/database.ts');
  return withTenantDatabase(tenant, async (ctx) => {
    const auth = createAuthService({ db: ctx.database.db, config: ctx.config.auth, logger: ctx.logger });
    const demo = await seedDemoIfEmpty(ctx.database.db, auth, ctx.config.catalog.currency);
    if (!demo) {
      process.stderr.write(
        `Error: ${ctx.target} already has users or products; the demo goes only into an empty one.\n`,
      );
      return 1;
    }
    process.stdout.write(
      `Seeded the demo catalogue into ${ctx.target}.\n` +
        `Demo login (shown only this once):\n  email:    ${demo.email}\n  password: ${demo.password}\n`,
    );
    return 0;
  });
}

/**
 * One progress line: redrawn in place on a terminal, one line per batch when
 * stdout is a file or a pipe (where carriage returns would only make noise).
 */
function createProgress(total: number) {
  const tty = process.stdout.isTTY === true;
  let drawn = false;
  return {
    update(done: number, _total: number, inserted: number) {
      const line = `  ${done}/${total} products (${Math.floor((done / total) * 100)}%), ${inserted} inserted`;
      if (tty) {
        process.stdout.write(`\r${line}\x1b[K`);
        drawn = true;
      } else {
        process.stdout.write(`${line}\n`);
      }
    },
    done() {
      if (drawn) process.stdout.write('\n');
    },
  };
}

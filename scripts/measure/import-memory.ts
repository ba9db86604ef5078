import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';

/**
 * npm run measure:import-memory [-- --giant-mb 200 --products 25000]: peak RSS and time of the real
 * `admin catalog:import` (under /usr/bin/time -v) for two generated files on a scratch PostgreSQL database:
 *   giant:     a few products, one of them with a name of giant-mb million characters;
 *   catalogue: `products` products of 5 steps × 4 components × 3 customisations (~4.4 kB each).
 * --giant-mb 0 skips the first, --products 0 skips the second (importing takes ~2 ms per product on 2 idle vCPUs). --invalid gives every product
 * of the catalogue a price with three decimals: the whole file goes through reading, building and validation,
 * and nothing reaches the database (memory of the pipeline without the time of the writes). --nul-at N puts a
 * NUL byte in the name of the catalogue's Nth product (issue 20: one bad entry must not abort the rest).
 */

const { values } = parseArgs({
  options: {
    'giant-mb': { type: 'string', default: '200' },
    products: { type: 'string', default: '25000' },
    invalid: { type: 'boolean', default: false },
    'nul-at': { type: 'string' },
  },
});
const giantMb = Number(values['giant-mb']);
const products = Number(values.products);
const nulAt = values['nul-at'] === undefined ? undefined : Number(values['nul-at']);
const adminUrl = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pcs-import-memory-'));
const database = 'pcs_measure_import_memory';
const url = Object.assign(new URL(adminUrl), { pathname: `/${database}` }).toString();

/** Each entry a string, or pieces of one (so that no giant string is ever held here). */
async function writeFile(file: string, entries: Iterable<string | Iterable<string>>): Promise<number> {
  const out = fs.createWriteStream(file);
  let first = true;
  const put = (s: string) =>
    out.write(s) ? Promise.resolve() : new Promise<void>((resolve) => out.once('drain', () => resolve()));
  await put('{"products":[');
  for (const entry of entries) {
    await put(first ? '\n' : ',\n');
    first = false;
    for (const piece of typeof entry === 'string' ? [entry] : entry) await put(piece);
  }
  await put('\n]}\n');
  await new Promise<void>((resolve) => out.end(() => resolve()));
  return fs.statSync(file).size;
}

function* giantName(): Iterable<string> {
  yield `{"sku":"GIANT-1","name":"`;
  const piece = 'x'.repeat(1_000_000);
  for (let i = 0; i < giantMb; i++) yield piece;
  yield `","steps":[]}`;
}

function* giant(): Iterable<string | Iterable<string>> {
  yield JSON.stringify({ sku: 'BEFORE-1', name: 'Before', steps: [] });
  yield giantName();
  yield JSON.stringify({ sku: 'AFTER-1', name: 'After', steps: [] });
}

function* catalogue(): Iterable<string> {
  for (let p = 0; p < products; p++) {
    const steps = Array.from({ length: 5 }, (_, s) => ({
      name: `Step ${s} of product ${p}`,
      order: s,
      components: Array.from({ length: 4 }, (_, c) => ({
        name: `Component ${c} of step ${s}`,
        position: c,
        customisations: Array.from({ length: 3 }, (_, x) => ({
          name: `Option ${x} (${p}.${s}.${c})`,
          type: 'dropdown',
          price: (p % 1000) + x / 4 + (values.invalid && s + c + x === 9 ? 0.005 : 0),
        })),
      })),
    }));
    const name = `Generated product number ${p}${p + 1 === nulAt ? '\u0000' : ''}`;
    yield JSON.stringify({ sku: `MEM-${String(p).padStart(7, '0')}`, name, steps });
  }
}

function measure(file: string): { seconds: number; peakMiB: number; code: number | null; summary: string } {
  const start = performance.now();
  const res = spawnSync(
    '/usr/bin/time',
    ['-v', process.execPath, '--import', 'tsx', 'scripts/admin.ts', 'catalog:import', file],
    {
      // A busy machine makes statements slower than the server's 2 s default: the measure is of memory.
      env: { DATABASE_STATEMENT_TIMEOUT_MS: '60000', ...process.env, DATABASE_URL: url, LOG_LEVEL: 'warn' },
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
    },
  );
  const seconds = (performance.now() - start) / 1000;
  const kb = Number(/Maximum resident set size \(kbytes\): (\d+)/.exec(res.stderr)?.[1]);
  const lines = [
    ...res.stdout.trim().split('\n').slice(0, 3),
    ...res.stderr.split('\n').filter((l) => l.startsWith('Error')),
  ];
  return { seconds, peakMiB: kb / 1024, code: res.status, summary: lines.join(' | ').slice(0, 400) };
}

const admin = new pg.Client({ connectionString: adminUrl });
await admin.connect();
try {
  await admin.query(`DROP DATABASE IF EXISTS ${database}`);
  await admin.query(`CREATE DATABASE ${database}`);
  execFileSync(process.execPath, ['--import', 'tsx', 'scripts/migrate.ts'], {
    env: { ...process.env, DATABASE_URL: url },
    stdio: 'ignore',
  });
  console.log(`${os.cpus().length} CPUs, Node ${process.version}`);
  const runs: [string, () => Iterable<string | Iterable<string>>][] = [];
  if (giantMb > 0) runs.push([`giant (one ${giantMb}-million-character name)`, giant]);
  if (products > 0)
    runs.push([
      `catalogue (${products} products${values.invalid ? ', each invalid' : ''}${nulAt ? `, a NUL in product ${nulAt}'s name` : ''})`,
      catalogue,
    ]);
  for (const [label, entries] of runs) {
    const file = path.join(dir, 'import.json');
    const bytes = await writeFile(file, entries());
    const m = measure(file);
    console.log(
      `${label}: ${(bytes / 1e6).toFixed(0)} MB file, exit ${m.code}, ${m.seconds.toFixed(1)} s, peak RSS ${m.peakMiB.toFixed(0)} MiB\n  ${m.summary}`,
    );
    fs.rmSync(file);
  }
} finally {
  await admin.query(`DROP DATABASE IF EXISTS ${database}`);
  await admin.end();
  fs.rmSync(dir, { recursive: true, force: true });
}

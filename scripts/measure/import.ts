import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';

/**
 * npm run measure:import [-- --products N]: seeds N products into one scratch PostgreSQL database,
 * exports them with `admin catalog:export`, imports the file into a second, empty one, imports it
 * again (all unchanged), exports the second and compares the files. Every step is the real command.
 */

const { values } = parseArgs({ options: { products: { type: 'string', default: '10000' } } });
const products = Number(values.products);
if (!Number.isInteger(products) || products < 1) throw new Error('--products must be a whole number at least 1');
const adminUrl = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pcs-import-'));
const names = ['pcs_measure_import_a', 'pcs_measure_import_b'];
const urlOf = (name: string) => Object.assign(new URL(adminUrl), { pathname: `/${name}` }).toString();

function run(script: string, args: string[], databaseUrl: string): { seconds: number; stdout: string } {
  const start = performance.now();
  const stdout = execFileSync(process.execPath, ['--import', 'tsx', `scripts/${script}.ts`, ...args], {
    env: { ...process.env, DATABASE_URL: databaseUrl, LOG_LEVEL: 'warn' },
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
    maxBuffer: 1024 * 1024 * 1024,
  });
  return { seconds: (performance.now() - start) / 1000, stdout: stdout.trim() };
}

const admin = new pg.Client({ connectionString: adminUrl });
await admin.connect();
try {
  for (const name of names) {
    await admin.query(`DROP DATABASE IF EXISTS ${name}`);
    await admin.query(`CREATE DATABASE ${name}`);
  }
  const [a, b] = names.map(urlOf) as [string, string];
  run('seed', ['--products', String(products)], a);
  run('migrate', [], b);
  const exported = run('admin', ['catalog:export', '--out', path.join(dir, 'a.json')], a);
  const first = run('admin', ['catalog:import', path.join(dir, 'a.json')], b);
  const second = run('admin', ['catalog:import', path.join(dir, 'a.json')], b);
  run('admin', ['catalog:export', '--out', path.join(dir, 'b.json')], b);
  const identical = fs.readFileSync(path.join(dir, 'a.json')).equals(fs.readFileSync(path.join(dir, 'b.json')));
  const bytes = fs.statSync(path.join(dir, 'a.json')).size;
  const rate = (s: number) => Math.round(products / s).toLocaleString('en');
  console.log(
    `${products.toLocaleString('en')} products, ${(bytes / 1e6).toFixed(1)} MB file; ${os.cpus().length} CPUs, Node ${process.version}`,
  );
  console.log(`export:                      ${exported.seconds.toFixed(1)} s (${rate(exported.seconds)} products/s)`);
  console.log(
    `import into an empty db:     ${first.seconds.toFixed(1)} s (${rate(first.seconds)} products/s)  ${first.stdout}`,
  );
  console.log(
    `import again (no changes):   ${second.seconds.toFixed(1)} s (${rate(second.seconds)} products/s)  ${second.stdout}`,
  );
  console.log(`export → import → export:    ${identical ? 'byte-identical' : 'DIFFERENT'}`);
  process.exitCode = identical ? 0 : 1;
} finally {
  for (const name of names) await admin.query(`DROP DATABASE IF EXISTS ${name}`);
  await admin.end();
  fs.rmSync(dir, { recursive: true, force: true });
}

/**
 * Soak test: N clients for M minutes mixing product pages, deep product queries,
 * logins and logouts; prints errors, latency percentiles and the server's RSS over
 * time. Not part of CI.
 *
 *   npm run soak -- --clients 8 --minutes 10                 # starts its own server on a fresh
 *                                                            # PostgreSQL database (DATABASE_URL) or
 *                                                            # a temporary embedded one
 *   npm run soak -- --url http://host:4000 --email e --password p [--metrics-token t]
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { seedCatalog } from '../db/seeds/catalog.ts';
import { loadConfig } from '../src/config.ts';
import { createAuthService } from '../src/modules/auth/service.ts';
import { createDatabase } from '../src/platform/db.ts';
import { createLogger } from '../src/platform/logger.ts';
import { migrateToLatest } from '../src/platform/migrate.ts';
import { freePort } from './lib/service-process.ts';
import { serviceNodeArgs } from './lib/start-command.ts';

const { values: args } = parseArgs({
  options: {
    clients: { type: 'string', default: '4' },
    minutes: { type: 'string', default: '1' },
    products: { type: 'string', default: '300' },
    'report-seconds': { type: 'string', default: '30' },
    url: { type: 'string' },
    email: { type: 'string' },
    password: { type: 'string' },
    'metrics-token': { type: 'string' },
    'database-url': { type: 'string', default: process.env.DATABASE_URL },
  },
});

const clients = Number(args.clients);
const durationMs = Number(args.minutes) * 60_000;
const reportEveryMs = Number(args['report-seconds']) * 1000;
if (!(clients >= 1) || !(durationMs > 0)) throw new Error('--clients and --minutes must be positive numbers');

const PAGE_QUERY = `query SoakPage($first: Int!, $after: String) {
  products(first: $first, after: $after) {
    data { id name sku }
    paginatorInfo { currentPage lastPage total hasMorePages endCursor }
  }
}`;
const PRODUCT_QUERY = `query SoakProduct($id: ID!) {
  product(id: $id) {
    id name sku
    steps { id name order components { id name customisations { id name type price } } }
  }
}`;

type Op = 'page' | 'product' | 'login' | 'logout';
const latencies: Record<Op, number[]> = { page: [], product: [], login: [], logout: [] };
const errors = new Map<string, number>();
let window: number[] = [];
let total = 0;

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}
const fmt = (ms: number) => (Number.isNaN(ms) ? '-' : `${ms.toFixed(1)}ms`);

async function timed<T>(op: Op, fn: () => Promise<{ ok: boolean; what: string; value?: T }>): Promise<T | undefined> {
  const start = performance.now();
  let outcome: { ok: boolean; what: string; value?: T };
  try {
    outcome = await fn();
  } catch (err) {
    outcome = { ok: false, what: (err as Error).cause ? String(((err as Error).cause as Error).message) : (err as Error).message };
  }
  const ms = performance.now() - start;
  latencies[op].push(ms);
  window.push(ms);
  total++;
  if (!outcome.ok) errors.set(`${op}: ${outcome.what}`, (errors.get(`${op}: ${outcome.what}`) ?? 0) + 1);
  return outcome.value;
}

async function graphql(base: string, token: string, query: string, variables: Record<string, unknown>) {
  const res = await fetch(`${base}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ query, variables }),
  });
  const body = (await res.json()) as { data?: any; errors?: { message: string }[] };
  const ok = res.status === 200 && !body.errors;
  return { ok, what: ok ? '' : `${res.status} ${body.errors?.[0]?.message ?? ''}`, value: body.data };
}

async function login(base: string, email: string, password: string): Promise<string | undefined> {
  return timed('login', async () => {
    const res = await fetch(`${base}/api/v1/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email, password }),
    });
    const body = (await res.json()) as { data?: { token: string } };
    return { ok: res.status === 200, what: String(res.status), value: body.data?.token };
  });
}

async function runClient(base: string, email: string, password: string, until: number, seed: number) {
  let rnd = seed;
  const random = () => ((rnd = (rnd * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
  let token = await login(base, email, password);
  const ids: string[] = [];
  let cursor: string | null = null;
  while (Date.now() < until) {
    if (!token) {
      await new Promise((r) => setTimeout(r, 200));
      token = await login(base, email, password);
      continue;
    }
    const roll = random();
    if (roll < 0.55 || ids.length === 0) {
      const data = await timed('page', () => graphql(base, token!, PAGE_QUERY, { first: 10 + Math.floor(random() * 40), after: cursor }));
      const page = data?.products;
      if (page) {
        for (const p of page.data) if (ids.length < 1000) ids.push(p.id);
        cursor = page.paginatorInfo.hasMorePages ? page.paginatorInfo.endCursor : null;
      }
    } else if (roll < 0.93) {
      await timed('product', () => graphql(base, token!, PRODUCT_QUERY, { id: ids[Math.floor(random() * ids.length)] }));
    } else {
      const old = token;
      await timed('logout', async () => {
        const res = await fetch(`${base}/api/v1/logout`, { method: 'POST', headers: { authorization: `Bearer ${old}` } });
        await res.arrayBuffer();
        return { ok: res.status === 200, what: String(res.status) };
      });
      token = await login(base, email, password);
    }
  }
}

interface Target {
  base: string;
  users: { email: string; password: string }[];
  rss(): Promise<number | undefined>;
  stop(): Promise<string>;
}

/** A fresh database (PostgreSQL or embedded), seeded, and a real server process on it. */
async function startOwnServer(): Promise<Target> {
  const adminUrl = args['database-url'];
  const env: Record<string, string> = { ...(process.env as Record<string, string>), NODE_ENV: 'production', LOG_LEVEL: 'warn' };
  delete env.DATABASE_URL;
  let cleanup: () => Promise<void>;
  let databaseUrl: string | undefined;
  let dataDir: string | undefined;
  if (adminUrl) {
    const name = `pcs_soak_${randomBytes(4).toString('hex')}`;
    const admin = new pg.Client({ connectionString: adminUrl });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name}`);
    const url = new URL(adminUrl);
    url.pathname = `/${name}`;
    databaseUrl = url.toString();
    env.DATABASE_URL = databaseUrl;
    cleanup = async () => {
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.end();
    };
  } else {
    dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'pcs-soak-'));
    env.DATA_DIR = dataDir;
    cleanup = () => fs.rm(dataDir!, { recursive: true, force: true });
  }

  const config = loadConfig({ NODE_ENV: 'production', ...(databaseUrl ? { DATABASE_URL: databaseUrl } : { DATA_DIR: dataDir! }) });
  const logger = createLogger('warn');
  const database = await createDatabase({ databaseUrl, dataDir: config.dataDir, poolSize: 2, logger });
  await migrateToLatest(database.db);
  await seedCatalog(database.db, { products: Number(args.products), seed: 7 });
  const auth = createAuthService({ db: database.db, config, logger });
  const users = [];
  for (let i = 0; i < clients; i++) {
    const user = { email: `soak${i}@example.com`, password: randomBytes(12).toString('base64url') };
    await auth.createUser({ name: `Soak ${i}`, ...user, isAdmin: false });
    users.push(user);
  }
  // The embedded database takes one process at a time: let go before the server opens it.
  await database.close();

  const port = await freePort();
  const child: ChildProcess = spawn(process.execPath, serviceNodeArgs(), {
    env: { ...env, PORT: String(port), HOST: '127.0.0.1' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  const base = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    const ready = await fetch(`${base}/ready`).then((r) => r.status === 200, () => false);
    if (ready) break;
    if (i > 300) throw new Error('server did not become ready');
    await new Promise((r) => setTimeout(r, 100));
  }
  console.log(`server pid ${child.pid} on ${base} (${databaseUrl ? 'PostgreSQL' : 'embedded'}), ${args.products} products`);
  return {
    base,
    users,
    async rss() {
      const status = await fs.readFile(`/proc/${child.pid}/status`, 'utf8').catch(() => '');
      const kb = /VmRSS:\s+(\d+)/.exec(status)?.[1];
      return kb ? Number(kb) * 1024 : undefined;
    },
    async stop() {
      child.kill('SIGTERM');
      const code = await exited;
      await cleanup();
      return `server exit code after SIGTERM: ${code}`;
    },
  };
}

async function useRunningServer(): Promise<Target> {
  if (!args.email || !args.password) throw new Error('--url needs --email and --password');
  const base = args.url!.replace(/\/$/, '');
  const token = args['metrics-token'];
  return {
    base,
    users: [{ email: args.email, password: args.password }],
    async rss() {
      if (!token) return undefined;
      const text = await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${token}` } }).then((r) => r.text());
      const value = /^process_resident_memory_bytes (\S+)/m.exec(text)?.[1];
      return value ? Number(value) : undefined;
    },
    stop: async () => 'running server left as it was',
  };
}

const target = args.url ? await useRunningServer() : await startOwnServer();
const mb = (b: number | undefined) => (b === undefined ? '?' : `${(b / 1024 / 1024).toFixed(1)} MB`);
const rssSeries: string[] = [];
const started = Date.now();
const until = started + durationMs;
console.log(`soak: ${clients} clients for ${args.minutes} min against ${target.base}; RSS at start ${mb(await target.rss())}`);

let lastTotal = 0;
const reporter = setInterval(async () => {
  // Taken before the await below, while clients keep pushing into a fresh window.
  const sorted = window.sort((a, b) => a - b);
  window = [];
  const count = total;
  const rss = await target.rss();
  const elapsed = Math.round((Date.now() - started) / 1000);
  rssSeries.push(`${elapsed}s ${mb(rss)}`);
  const errorCount = [...errors.values()].reduce((a, b) => a + b, 0);
  console.log(
    `t=${String(elapsed).padStart(4)}s  requests=${count} (+${count - lastTotal}, ${((count - lastTotal) / (reportEveryMs / 1000)).toFixed(0)}/s)` +
      `  errors=${errorCount}  p50=${fmt(percentile(sorted, 50))} p99=${fmt(percentile(sorted, 99))}  rss=${mb(rss)}`,
  );
  lastTotal = count;
}, reportEveryMs);

await Promise.all(
  Array.from({ length: clients }, (_, i) => {
    const user = target.users[i % target.users.length]!;
    return runClient(target.base, user.email, user.password, until, i + 1);
  }),
);
clearInterval(reporter);
const finalRss = await target.rss();

console.log(`\n== ${total} requests in ${((Date.now() - started) / 1000).toFixed(0)} s, ${(total / ((Date.now() - started) / 1000)).toFixed(0)}/s`);
for (const op of Object.keys(latencies) as Op[]) {
  const sorted = latencies[op].sort((a, b) => a - b);
  console.log(
    `${op.padEnd(8)} n=${String(sorted.length).padStart(7)}  p50=${fmt(percentile(sorted, 50))}  p95=${fmt(percentile(sorted, 95))}  p99=${fmt(percentile(sorted, 99))}  max=${fmt(sorted.at(-1) ?? NaN)}`,
  );
}
const all = Object.values(latencies).flat().sort((a, b) => a - b);
console.log(`all      p99=${fmt(percentile(all, 99))}`);
console.log(`errors: ${errors.size === 0 ? 'none' : ''}`);
for (const [what, n] of errors) console.log(`  ${n} × ${what}`);
console.log(`RSS over time: ${rssSeries.join(', ')}; final ${mb(finalRss)}`);
console.log(await target.stop());

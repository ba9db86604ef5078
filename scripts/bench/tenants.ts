import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRng } from '../../db/seeds/catalog.ts';
import { stopServer, type Server } from '../lib/service-process.ts';
import { ticksToMs } from '../lib/proc.ts';
import { emptyTotals, runCase, type CaseTotals } from './case-runner.ts';
import { PgMonitor } from './pg-monitor.ts';
import { QUERIES } from './queries.ts';
import { startService } from './servers.ts';
import type { ServiceMode, Settings } from './settings.ts';
import { prepareTenantSet, revokeBenchTokens, type TenantSet, type TenantSetSpec } from './tenant-dataset.ts';
import { ensureWrk } from './wrk.ts';
import { zipfSampler } from './zipf.ts';

// npm run bench -- --tenants N: what tenancy costs. The same catalogue (settings.products products) as one
// company without hosts (today's deployment), as one tenant reached by its host, and split over N tenants
// each with a host, requests spread over them. Each case runs on a service of its own, started for it.

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SCRIPT = fileURLToPath(new URL('wrk-tenants.lua', import.meta.url));
const MODES: ServiceMode[] = ['miss', 'hot'];
const MODE_LABELS: Record<string, string> = {
  miss: 'miss path: product(id) full depth, uniform over the products, response cache off, token cache on',
  hot: 'hot reads: product(id) full depth, Zipf (s = 1) over the products, both caches on',
};

/** One request a line: "<host>\t<token>\t<body>", products drawn uniformly (miss) or Zipf-like (hot). */
function requestLines(set: TenantSet, mode: ServiceMode): string[] {
  const products = set.tenants.flatMap((t) => t.productIds.map((id) => ({ tenant: t, id })));
  const rng = createRng(mode === 'hot' ? 11 : 7);
  // The ranks' products in a scrambled order, the same whatever the split: hot products fall in any tenant.
  const order = products.map((_, i) => i).sort(() => rng() - 0.5);
  const draw = mode === 'hot' ? zipfSampler(products.length, 1, rng) : () => Math.floor(rng() * products.length);
  return Array.from({ length: 20_000 }, () => {
    const { tenant, id } = products[order[draw()]!]!;
    const body = JSON.stringify({ query: QUERIES.Q1, variables: { id } });
    return `${tenant.host ?? ''}\t${tenant.token}\t${body}`;
  });
}

/** A few tenants of each set, through their hosts, must answer their own products before any load. */
async function check(server: Server, set: TenantSet): Promise<void> {
  const step = Math.max(1, Math.floor(set.tenants.length / 20));
  for (let i = 0; i < set.tenants.length; i += step) {
    const t = set.tenants[i]!;
    const id = t.productIds[0]!;
    let body = '';
    // A loaded machine may answer 503 (no connection within DATABASE_CONNECT_TIMEOUT_MS): asked again.
    for (let attempt = 0; attempt < 5 && (attempt === 0 || body.includes('SERVICE_UNAVAILABLE')); attempt++) {
      if (attempt > 0) await new Promise((r) => setTimeout(r, 1000));
      body = await ask(server, t.host, t.token, `{ product(id: "${id}") { id } }`);
    }
    if (body !== JSON.stringify({ data: { product: { id } } })) {
      throw new Error(`${set.name}: tenant ${t.host ?? '(no host)'} answered ${body} for product ${id}`);
    }
  }
}

/** node:http, which sends the Host given (fetch does not). */
function ask(server: Server, host: string | null, token: string, query: string): Promise<string> {
  const url = new URL(`${server.url}/graphql`);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: 'POST',
        headers: { ...(host ? { host } : {}), 'content-type': 'application/json', authorization: `Bearer ${token}` },
      },
      (res) => {
        let text = '';
        res.on('data', (c: Buffer) => (text += c.toString()));
        res.on('end', () => resolve(text));
      },
    );
    req.on('error', reject);
    req.end(JSON.stringify({ query }));
  });
}

/**
 * One request per tenant before the load: its token is then in the token cache, as in a service that has
 * run for a while. Otherwise a short case on a slow machine pays a token lookup for most of its first
 * thousand requests with 1,000 tenants, and one with one tenant.
 */
async function warmTokens(server: Server, set: TenantSet): Promise<void> {
  const queue = [...set.tenants];
  const worker = async () => {
    for (let t = queue.pop(); t; t = queue.pop()) await ask(server, t.host, t.token, '{ __typename }');
  };
  await Promise.all(Array.from({ length: 16 }, worker));
}

/** Wall time of a command as an operator runs it, in ms: the fastest of `runs`. */
function timeCommand(args: string[], url: string, runs = 2): number {
  let best = Infinity;
  for (let i = 0; i < runs; i++) {
    const started = process.hrtime.bigint();
    execFileSync('npm', ['run', '--silent', ...args], {
      cwd: ROOT,
      env: { ...process.env, DATABASE_URL: url, LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    best = Math.min(best, Number(process.hrtime.bigint() - started) / 1e6);
  }
  return best;
}

interface SetTimes {
  startMs: number[];
  migrateMs: number;
  adminMs: number;
}

export async function runTenantBench(settings: Settings, log: (line: string) => void): Promise<number> {
  const tenants = settings.tenants!;
  const wrk = ensureWrk(log);
  const adminUrl = settings.url;
  const each = Math.max(1, Math.floor(settings.products / tenants));
  const specs: TenantSetSpec[] = [
    {
      name: 'one company, no host',
      dbName: 'pcs_bench_t_single',
      tenants: 1,
      productsEach: settings.products,
      hosts: false,
    },
    {
      name: '1 tenant by host',
      dbName: 'pcs_bench_t_one',
      tenants: 1,
      productsEach: settings.products,
      hosts: true,
      copyOf: 'pcs_bench_t_single',
    },
    { name: `${tenants} tenants by host`, dbName: `pcs_bench_t_${tenants}`, tenants, productsEach: each, hosts: true },
  ];
  const sets: TenantSet[] = [];
  for (const spec of specs) sets.push(await prepareTenantSet(adminUrl, spec, log));
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'pcs-bench-tenants-'));
  const results = new Map<string, CaseTotals>();
  const times = new Map<string, SetTimes>(sets.map((s) => [s.name, { startMs: [], migrateMs: 0, adminMs: 0 }]));
  let bad = false;
  try {
    const files = new Map<string, string>();
    for (const set of sets) {
      for (const mode of MODES) {
        const file = path.join(tmp, `${set.dbName}.${mode}.tsv`);
        fs.writeFileSync(file, `${requestLines(set, mode).join('\n')}\n`);
        files.set(`${set.name}/${mode}`, file);
      }
    }
    log(
      `load: wrk -t${settings.threads} -c${settings.connections}, warm-up ${settings.warmup} s + ${settings.duration} s a case`,
    );
    for (let round = 0; round < settings.rounds; round++) {
      for (const mode of MODES) {
        log(`round ${round + 1}: ${MODE_LABELS[mode]}`);
        for (const set of round % 2 === 0 ? sets : [...sets].reverse()) {
          const started = Date.now();
          const server = await startService({ ...settings, url: set.url }, false, mode);
          times.get(set.name)!.startMs.push(Date.now() - started);
          const monitor = new PgMonitor(adminUrl, set.dbName);
          await monitor.connect();
          try {
            if (round === 0) await check(server, set);
            await warmTokens(server, set);
            const key = `${set.name}/${mode}`;
            if (!results.has(key)) results.set(key, emptyTotals());
            const ctx = {
              monitor,
              serverPids: [server.child.pid!],
              warmup: settings.warmup,
              duration: settings.duration,
              log,
            };
            const load = {
              wrk,
              threads: settings.threads,
              connections: settings.connections,
              token: '',
              script: SCRIPT,
            };
            await runCase(
              ctx,
              { ...load, bodiesFile: files.get(key)! },
              { ...server, name: set.name },
              results.get(key)!,
            );
          } finally {
            await monitor.end();
            await stopServer(server);
          }
        }
      }
    }
    for (const set of sets) {
      const t = times.get(set.name)!;
      t.migrateMs = timeCommand(['db:migrate'], set.url);
      t.adminMs = timeCommand(['admin', '--', 'token:list'], set.url);
    }
  } finally {
    for (const set of sets) await revokeBenchTokens(adminUrl, set);
    fs.rmSync(tmp, { recursive: true, force: true });
  }
  for (const totals of results.values()) bad ||= totals.errors + totals.bad > 0;
  process.stdout.write(report(sets, results, times));
  if (bad) log('FAILED: errors, non-2xx or bad responses during the load');
  return bad ? 1 : 0;
}

function report(sets: TenantSet[], results: Map<string, CaseTotals>, times: Map<string, SetTimes>): string {
  const lines = [
    '| case | mode | req/s | × one company | p50 ms | p99 ms | CPU ms/request (node + PostgreSQL) | × one company | transactions/request |',
    '|---|---|---:|---:|---:|---:|---:|---:|---:|',
  ];
  const ms = (ticks: number, t: CaseTotals) => ticksToMs(ticks) / t.requests;
  const perRequest = (t: CaseTotals) => ms(t.nodeTicks + t.pgTicks, t);
  const rate = (t: CaseTotals) => t.requests / t.seconds;
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  for (const mode of MODES) {
    const base = results.get(`${sets[0]!.name}/${mode}`)!;
    for (const set of sets) {
      const t = results.get(`${set.name}/${mode}`)!;
      const cpu = `${perRequest(t).toFixed(3)} (${ms(t.nodeTicks, t).toFixed(3)} + ${ms(t.pgTicks, t).toFixed(3)})`;
      lines.push(
        `| ${set.name} | ${mode} | ${rate(t).toFixed(0)} | ${(rate(t) / rate(base)).toFixed(2)} | ` +
          `${median(t.p50).toFixed(2)} | ${median(t.p99).toFixed(2)} | ${cpu} | ${(perRequest(t) / perRequest(base)).toFixed(2)} | ` +
          `${(t.statements / t.statementRequests).toFixed(2)} |`,
      );
    }
  }
  lines.push(
    '',
    '| case | npm start to ready, ms (median) | db:migrate, no-op, ms | admin token:list, ms |',
    '|---|---:|---:|---:|',
  );
  for (const set of sets) {
    const t = times.get(set.name)!;
    lines.push(`| ${set.name} | ${median(t.startMs)} | ${t.migrateMs.toFixed(0)} | ${t.adminMs.toFixed(0)} |`);
  }
  return `${lines.join('\n')}\n`;
}

import { spawn, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { encodeCursor } from '../../src/modules/catalog/pagination.ts';
import { ensureDatabase, prepareDataset, revokeToken } from '../lib/dataset.ts';
import { cpuTicks, reapedChildrenTicks, ticksToMs, treeTicks } from './proc.ts';
import { QUERY_LABELS, QUERY_NAMES, requestBodies, type QueryName } from './queries.ts';
import { serviceNodeArgs } from '../lib/start-command.ts';
import { startServer, stopServer, type Server } from '../lib/service-process.ts';

/**
 * npm run bench [-- --quick] : the service against the reference server, same load,
 * same run, alternating. See BENCHMARKS.md for the method.
 */

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const HERE = fileURLToPath(new URL('.', import.meta.url));

const { values: opts } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    products: { type: 'string' },
    duration: { type: 'string' },
    warmup: { type: 'string' },
    rounds: { type: 'string' },
    connections: { type: 'string', default: '32' },
    threads: { type: 'string', default: '1' },
    queries: { type: 'string', default: QUERY_NAMES.join(',') },
    pool: { type: 'string' },
    // The service's own default (WEB_CONCURRENCY=1): on 2 cores shared with PostgreSQL
    // and wrk, 2 workers measured slower (BENCHMARKS.md).
    workers: { type: 'string', default: '1' },
    'ref-pool': { type: 'string' },
    profile: { type: 'boolean', default: false },
    json: { type: 'string' },
  },
});

const quick = opts.quick;
const settings = {
  url: process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/pcs_bench',
  products: Number(opts.products ?? 10_000),
  duration: Number(opts.duration ?? (quick ? 2 : 10)),
  warmup: Number(opts.warmup ?? (quick ? 1 : 3)),
  rounds: Number(opts.rounds ?? (quick ? 1 : 2)),
  connections: Number(opts.connections),
  threads: Number(opts.threads),
  // Distinct requests per case; every one is checked against the reference first.
  distinct: quick ? 200 : 500,
  queries: opts.queries!.split(',').map((q) => q.trim()) as QueryName[],
  servicePool: opts.pool,
  // The service's WEB_CONCURRENCY; the reference stays one process.
  workers: Number(opts.workers),
  referencePool: opts['ref-pool'] ?? opts.pool ?? '10',
};
for (const q of settings.queries) if (!QUERY_NAMES.includes(q)) throw new Error(`unknown query ${q}`);
if (!Number.isInteger(settings.workers) || settings.workers < 1 || settings.workers > 64) throw new Error('--workers must be 1..64');

const log = (line: string) => process.stderr.write(`${line}\n`);

function ensureWrk(): string {
  try {
    return execFileSync('which', ['wrk'], { encoding: 'utf8' }).trim();
  } catch {
    log('wrk not found; installing it with apt-get (Debian package wrk)...');
    try {
      execFileSync('apt-get', ['install', '-y', '-qq', 'wrk'], { stdio: 'inherit' });
    } catch {
      execFileSync('apt-get', ['update', '-qq'], { stdio: 'inherit' });
      execFileSync('apt-get', ['install', '-y', '-qq', 'wrk'], { stdio: 'inherit' });
    }
    return execFileSync('which', ['wrk'], { encoding: 'utf8' }).trim();
  }
}

/** POSTs every distinct body to both servers and compares the responses byte for byte. */
async function verify(q: QueryName, bodies: string[], token: string, servers: Server[]): Promise<string[]> {
  const problems: string[] = [];
  const post = async (server: Server, body: string) => {
    const res = await fetch(`${server.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json', authorization: `Bearer ${token}` },
      body,
    });
    return { status: res.status, text: await res.text() };
  };
  let next = 0;
  const worker = async () => {
    while (next < bodies.length && problems.length < 5) {
      const body = bodies[next++]!;
      const [a, b] = await Promise.all(servers.map((s) => post(s, body)));
      if (a!.status !== 200 || b!.status !== 200 || a!.text !== b!.text || !a!.text.startsWith('{"data":{') || a!.text.includes('"errors"')) {
        problems.push(
          `${q} ${body}\n  service   ${a!.status} ${a!.text.slice(0, 300)}\n  reference ${b!.status} ${b!.text.slice(0, 300)}`,
        );
      }
    }
  };
  await Promise.all(Array.from({ length: 8 }, worker));
  return problems;
}

/** Statistics and CPU of the benchmark database's backends, read from a connection to another database. */
class PgMonitor {
  private client: pg.Client;
  constructor(
    url: string,
    private readonly dbName: string,
  ) {
    const admin = new URL(url);
    admin.pathname = '/postgres';
    this.client = new pg.Client({ connectionString: admin.toString() });
  }
  connect() {
    return this.client.connect();
  }
  end() {
    return this.client.end();
  }
  async backendPids(): Promise<number[]> {
    const { rows } = await this.client.query<{ pid: number }>(
      'SELECT pid FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
      [this.dbName],
    );
    return rows.map((r) => r.pid);
  }
  async committed(): Promise<number> {
    const { rows } = await this.client.query<{ n: string }>(
      'SELECT xact_commit AS n FROM pg_stat_database WHERE datname = $1',
      [this.dbName],
    );
    return Number(rows[0]!.n);
  }
  /**
   * Waits until requests still queued in the servers when wrk stopped have
   * finished: every backend idle and the servers' CPU time (workers included) unchanged for 300 ms.
   */
  async drain(serverPids: number[]): Promise<void> {
    const serverTicks = () => serverPids.reduce((sum, pid) => sum + [...treeTicks(pid).values()].reduce((a, b) => a + b, 0), 0);
    for (let quiet = 0, i = 0, last = serverTicks(); quiet < 3 && i < 600; i++) {
      await new Promise((r) => setTimeout(r, 100));
      const { rows } = await this.client.query<{ busy: number }>(
        "SELECT count(*)::int AS busy FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid() AND state <> 'idle'",
        [this.dbName],
      );
      const now = serverTicks();
      quiet = rows[0]!.busy === 0 && now === last ? quiet + 1 : 0;
      last = now;
    }
  }

  /**
   * Ends the benchmark database's backends once drained: an exiting backend
   * flushes its pending statistics at once, where an idle one may hold them back
   * for up to 10 s. Both servers' pools reconnect on their next request.
   */
  async flush(serverPids: number[]): Promise<void> {
    await this.drain(serverPids);
    await this.client.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()', [
      this.dbName,
    ]);
    for (let i = 0; i < 100 && (await this.backendPids()).length > 0; i++) await new Promise((r) => setTimeout(r, 20));
  }
}

interface WrkResult {
  requests: number;
  duration_us: number;
  p50_us: number;
  p99_us: number;
  connect: number;
  read: number;
  write: number;
  status: number;
  timeout: number;
  bad: number;
  sent: number;
}

function runWrk(wrk: string, url: string, bodiesFile: string, token: string, seconds: number): Promise<WrkResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      wrk,
      [
        `-t${settings.threads}`,
        `-c${settings.connections}`,
        `-d${seconds}s`,
        '--timeout',
        '10s',
        '-s',
        path.join(HERE, 'wrk.lua'),
        `${url}/graphql`,
        '--',
        bodiesFile,
        token,
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (out += c.toString()));
    child.on('error', reject);
    child.on('exit', (code) => {
      const line = out.split('\n').find((l) => l.startsWith('WRK_RESULT '));
      if (code !== 0 || !line) return reject(new Error(`wrk failed (${code}):\n${out}`));
      resolve(JSON.parse(line.slice('WRK_RESULT '.length)) as WrkResult);
    });
  });
}

interface CaseTotals {
  requests: number;
  seconds: number;
  p50: number[];
  p99: number[];
  nodeTicks: number;
  pgTicks: number;
  wrkTicks: number;
  statements: number;
  statementRequests: number;
  errors: number;
  bad: number;
}

const emptyTotals = (): CaseTotals => ({
  requests: 0,
  seconds: 0,
  p50: [],
  p99: [],
  nodeTicks: 0,
  pgTicks: 0,
  wrkTicks: 0,
  statements: 0,
  statementRequests: 0,
  errors: 0,
  bad: 0,
});

async function runCase(
  wrk: string,
  server: Server,
  serverPids: number[],
  bodiesFile: string,
  token: string,
  monitor: PgMonitor,
  totals: CaseTotals,
): Promise<void> {
  await monitor.flush(serverPids);
  const committedBefore = await monitor.committed();
  const warm = await runWrk(wrk, server.url, bodiesFile, token, settings.warmup).catch((err: Error) => {
    const state = server.child.exitCode === null ? 'running' : `exited with ${server.child.exitCode}`;
    throw new Error(`${err.message}\n${server.name} ${state}; its stderr:\n${server.stderr.join('')}`);
  });
  // The warm-up's last requests must not run on the measured window's CPU.
  await monitor.drain(serverPids);

  const pidsBefore = await monitor.backendPids();
  const pgBefore = new Map(pidsBefore.map((pid) => [pid, cpuTicks(pid) ?? 0]));
  // The service's primary and its workers (and tsx's esbuild helpers, idle once loaded).
  const nodeBefore = treeTicks(server.child.pid!);
  const wrkBefore = reapedChildrenTicks();

  const result = await runWrk(wrk, server.url, bodiesFile, token, settings.duration);

  const wrkTicks = reapedChildrenTicks() - wrkBefore;
  let nodeTicks = 0;
  for (const [pid, now] of treeTicks(server.child.pid!)) nodeTicks += now - (nodeBefore.get(pid) ?? 0);
  let pgTicks = 0;
  for (const pid of new Set([...pidsBefore, ...(await monitor.backendPids())])) {
    const now = cpuTicks(pid);
    if (now !== null) pgTicks += now - (pgBefore.get(pid) ?? 0);
  }
  await monitor.flush(serverPids);
  const committed = (await monitor.committed()) - committedBefore;

  totals.requests += result.requests;
  totals.seconds += result.duration_us / 1e6;
  totals.p50.push(result.p50_us / 1000);
  totals.p99.push(result.p99_us / 1000);
  totals.nodeTicks += nodeTicks;
  totals.pgTicks += pgTicks;
  totals.wrkTicks += wrkTicks;
  totals.statements += committed;
  totals.statementRequests += warm.sent + result.sent;
  for (const r of [warm, result]) {
    totals.errors += r.connect + r.read + r.write + r.status + r.timeout;
    totals.bad += r.bad;
  }
  log(
    `  ${server.name.padEnd(9)} ${(result.requests / (result.duration_us / 1e6)).toFixed(0).padStart(6)} req/s` +
      `  p50 ${(result.p50_us / 1000).toFixed(2)} ms  p99 ${(result.p99_us / 1000).toFixed(2)} ms` +
      `  errors ${result.connect + result.read + result.write + result.status + result.timeout}  bad ${result.bad}`,
  );
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? NaN : s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

async function main(): Promise<number> {
  const wrk = ensureWrk();
  const dbName = new URL(settings.url).pathname.slice(1);
  if (await ensureDatabase(settings.url)) log(`created database ${dbName}`);
  const dataset = await prepareDataset(settings.url, settings.products, log);
  const { token, tokenId } = dataset.tokens[0]!;
  if (dataset.seededNow > 0) log(`seeded ${dataset.seededNow} products in ${(dataset.seedMs / 1000).toFixed(1)} s`);

  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'pcs-bench-'));
  const profileDir = path.join(ROOT, 'bench-profiles');
  const serviceEnv: Record<string, string> = {
    DATABASE_URL: settings.url,
    LOG_LEVEL: 'warn',
    NODE_ENV: 'production',
    WEB_CONCURRENCY: String(settings.workers),
    // Every wrk connection carries the bench's one token: the per-token limit
    // would refuse all but 16 of them, so it is raised to the connection count.
    GRAPHQL_MAX_IN_FLIGHT_PER_TOKEN: String(Math.max(16, settings.connections)),
  };
  if (settings.servicePool) serviceEnv.DATABASE_POOL_SIZE = settings.servicePool;
  const servers: Server[] = [];
  const monitor = new PgMonitor(settings.url, dbName);
  await monitor.connect();
  let failed = false;
  const results = new Map<string, CaseTotals>();
  try {
    servers.push(
      // As `npm start` runs it, runtime flags included. node:cluster starts the
      // workers with the primary's flags: one profile per process.
      await startServer(
        'service',
        [...(opts.profile ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : []), ...serviceNodeArgs()],
        serviceEnv,
        'GraphiQL: ',
      ),
    );
    servers.push(
      await startServer('reference', ['--import', 'tsx', path.join(HERE, 'reference-server.ts')], {
        DATABASE_URL: settings.url,
        POOL_SIZE: settings.referencePool,
      }),
    );

    const files = new Map<QueryName, string>();
    for (const q of settings.queries) {
      const bodies = requestBodies(q, dataset.productIds, settings.distinct, (id) => encodeCursor('product', id));
      const problems = await verify(q, bodies, token, servers);
      if (problems.length > 0) {
        failed = true;
        log(`MISMATCH ${q}: the service and the reference disagree:\n${problems.join('\n')}`);
        continue;
      }
      log(`${q}: ${bodies.length} distinct requests, service == reference byte for byte`);
      const file = path.join(tmp, `${q}.jsonl`);
      fs.writeFileSync(file, `${bodies.join('\n')}\n`);
      files.set(q, file);
    }
    if (failed) return 1;

    log(
      `load: wrk -t${settings.threads} -c${settings.connections}, warm-up ${settings.warmup} s + ${settings.duration} s per case, ${settings.rounds} round(s), alternating`,
    );
    for (let round = 0; round < settings.rounds; round++) {
      for (const q of settings.queries) {
        log(`round ${round + 1} ${q}: ${QUERY_LABELS[q]}`);
        // Alternate which server goes first so neither always inherits a warmer cache.
        const order = round % 2 === 0 ? servers : [...servers].reverse();
        for (const server of order) {
          const key = `${q}/${server.name}`;
          if (!results.has(key)) results.set(key, emptyTotals());
          await runCase(wrk, server, servers.map((s) => s.child.pid!), files.get(q)!, token, monitor, results.get(key)!);
        }
      }
    }
  } finally {
    await monitor.end();
    for (const s of servers) await stopServer(s);
    await revokeToken(settings.url, tokenId);
    fs.rmSync(tmp, { recursive: true, force: true });
  }

  const rows: string[][] = [];
  const json: Record<string, unknown>[] = [];
  for (const q of settings.queries) {
    const svc = results.get(`${q}/service`)!;
    const ref = results.get(`${q}/reference`)!;
    for (const [name, t] of [
      ['service', svc],
      ['reference', ref],
    ] as const) {
      const rps = t.requests / t.seconds;
      const row = {
        query: q,
        server: name,
        rps,
        p50: median(t.p50),
        p99: median(t.p99),
        nodeCpu: ticksToMs(t.nodeTicks) / t.requests,
        pgCpu: ticksToMs(t.pgTicks) / t.requests,
        wrkCpu: ticksToMs(t.wrkTicks) / t.requests,
        statements: t.statements / t.statementRequests,
        errors: t.errors,
        bad: t.bad,
        ratio: name === 'service' ? svc.requests / svc.seconds / (ref.requests / ref.seconds) : null,
      };
      json.push(row);
      if (t.errors > 0 || t.bad > 0) failed = true;
      rows.push([
        q,
        name,
        row.rps.toFixed(0),
        row.p50.toFixed(2),
        row.p99.toFixed(2),
        row.nodeCpu.toFixed(3),
        row.pgCpu.toFixed(3),
        row.wrkCpu.toFixed(3),
        row.statements.toFixed(2),
        `${row.errors}/${row.bad}`,
        row.ratio === null ? '' : row.ratio.toFixed(2),
      ]);
    }
  }
  const header = ['query', 'server', 'req/s', 'p50 ms', 'p99 ms', 'node CPU ms/req', 'PG CPU ms/req', 'wrk CPU ms/req', 'SQL/req', 'errors/bad', 'svc/ref'];
  const table = [header, header.map(() => '---'), ...rows].map((r) => `| ${r.join(' | ')} |`).join('\n');
  const cpu = os.cpus();
  process.stdout.write(
    `\n${os.cpus().length} x ${cpu[0]?.model ?? 'cpu'}, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}, ` +
      `${settings.products} products, wrk -t${settings.threads} -c${settings.connections}, ${settings.rounds} x ${settings.duration} s per case (after ${settings.warmup} s warm-up)` +
      `, service workers ${settings.workers}${settings.servicePool ? `, service pool ${settings.servicePool} per worker` : ''}, reference pool ${settings.referencePool}\n\n${table}\n\n`,
  );
  for (const q of settings.queries) process.stdout.write(`${q}: ${QUERY_LABELS[q]}\n`);
  if (quick) process.stdout.write('--quick: a few seconds per case; the figures are indicative, the run checks correctness.\n');
  if (opts.json) fs.writeFileSync(opts.json, JSON.stringify({ settings, rows: json }, null, 2));
  if (failed) log('FAILED: errors, non-2xx or bad responses during the load (see errors/bad)');
  return failed ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    log(err instanceof Error ? (err.stack ?? err.message) : String(err));
    process.exit(1);
  },
);

import { spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedCatalog } from '../../db/seeds/catalog.ts';
import { DEFAULT_TENANT_ID, withTenant } from '../../src/platform/tenancy.ts';
import { serviceNodeArgs } from '../../scripts/lib/start-command.ts';
import { createCliTarget, type CliTarget } from '../support/cli.ts';
import { startServerProcess, type ServerProcess } from '../support/process.ts';

/**
 * WEB_CONCURRENCY=2: the real service as a primary and two workers on one port,
 * on a new, unmigrated PostgreSQL database. Which worker wrote a line is in its
 * `pid`, so the access lines say which process answered each request.
 */

const ROOT = path.resolve(import.meta.dirname, '../..');
const METRICS_TOKEN = 'cluster-metrics-token-0123456789';
const credentials = { email: 'cluster@example.com', password: 'cluster-test-password' };
const PRODUCTS_QUERY =
  'query ClusterProducts { products(first: 3) { data { id name steps { id } } paginatorInfo { total } } }';

interface Outcome {
  id: string;
  status?: number;
  complete: boolean;
  body: string;
  error?: string;
}

let sequence = 0;
/** One request; agent false: a connection of its own, which the cluster hands to the next worker. */
function send(
  url: string,
  options: {
    method?: string;
    path: string;
    body?: unknown;
    headers?: Record<string, string>;
    agent?: http.Agent | false;
    id?: string;
  },
): Promise<Outcome> {
  const id = options.id ?? `cluster-${++sequence}`;
  const payload = options.body === undefined ? undefined : JSON.stringify(options.body);
  return new Promise((resolve) => {
    const req = http.request({
      host: '127.0.0.1',
      port: new URL(url).port,
      method: options.method ?? (payload === undefined ? 'GET' : 'POST'),
      path: options.path,
      agent: options.agent ?? false,
      headers: {
        ...(payload === undefined
          ? {}
          : { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(payload)) }),
        'x-request-id': id,
        ...options.headers,
      },
    });
    req.on('response', (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (c: string) => (text += c));
      const done = (complete: boolean) => resolve({ id, status: res.statusCode, complete, body: text });
      res.on('end', () => done(res.complete));
      res.on('error', () => done(false));
      res.on('aborted', () => done(false));
    });
    req.on('error', (err: NodeJS.ErrnoException) =>
      resolve({ id, complete: false, body: '', error: err.code ?? err.message }),
    );
    req.end(payload);
  });
}

/** The value of one series in Prometheus text, or undefined when absent. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe('WEB_CONCURRENCY=2 on the embedded database', () => {
  it('is a configuration error (exit 78) that says why, before any database is opened', async () => {
    const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'pcs-cluster-embedded-'));
    try {
      const env: NodeJS.ProcessEnv = {
        ...process.env,
        WEB_CONCURRENCY: '2',
        DATA_DIR: dataDir,
        NODE_ENV: 'production',
      };
      delete env.DATABASE_URL;
      const child = spawn(process.execPath, serviceNodeArgs(), { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
      let stderr = '';
      child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
      child.stdout.resume();
      const code = await new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)));
      expect(code).toBe(78);
      expect(stderr).toContain('WEB_CONCURRENCY="2": 2 workers need a PostgreSQL server (DATABASE_URL)');
      expect(await fs.readdir(dataDir)).toEqual([]);
    } finally {
      await fs.rm(dataDir, { recursive: true, force: true });
    }
  });
});

describe.skipIf(!process.env.DATABASE_URL)('WEB_CONCURRENCY=2 on PostgreSQL (a cluster needs DATABASE_URL)', () => {
  let target: CliTarget;
  let server: ServerProcess;
  let token: string;
  let workerPids: number[];
  const primaryPid = () => server.child.pid!;

  beforeAll(async () => {
    target = await createCliTarget();
    server = await startServerProcess({ ...target.env, WEB_CONCURRENCY: '2', METRICS_TOKEN });
    await server.waitForLog((l) => l.msg === 'ready' && l.pid === primaryPid(), 90_000);
    workerPids = server.logs.filter((l) => l.msg === 'worker started').map((l) => l.workerPid as number);

    const created = await target.run(
      'admin',
      ['user:create', '--email', credentials.email, '--name', 'Cluster', '--password-stdin'],
      {
        input: `${credentials.password}\n`,
      },
    );
    expect(created.code, created.stderr).toBe(0);
    const handle = await target.open();
    // The catalogue of the default tenant, which the cluster's requests are for (no tenant has a host).
    await withTenant(DEFAULT_TENANT_ID, () => seedCatalog(handle.db, { products: 4, seed: 11 }));
    await handle.close();

    const login = await send(server.url, { path: '/api/v1/login', body: credentials });
    expect(login.status).toBe(200);
    token = (JSON.parse(login.body) as { data: { token: string } }).data.token;
  }, 150_000);

  afterAll(async () => {
    server?.kill();
    await target?.drop();
  });

  const query = (agent?: http.Agent | false) =>
    send(server.url, {
      path: '/graphql',
      body: { query: PRODUCTS_QUERY },
      headers: { authorization: `Bearer ${token}` },
      agent,
    });
  const scrape = (id?: string) =>
    send(server.url, { path: '/metrics', headers: { authorization: `Bearer ${METRICS_TOKEN}` }, id });
  const answeredBy = (id: string) =>
    server.logs.find((l) => l.msg === 'request' && l.reqId === id)?.pid as number | undefined;

  it('migrates once, in the primary, and serves from two worker processes', async () => {
    expect(workerPids).toHaveLength(2);
    expect(new Set([primaryPid(), ...workerPids]).size).toBe(3);
    const migrationLines = server.logs.filter((l) => l.msg === 'migration');
    expect(migrationLines.length).toBeGreaterThan(0);
    expect(new Set(migrationLines.map((l) => l.pid))).toEqual(new Set([primaryPid()]));
    expect(new Set(migrationLines.map((l) => l.migration)).size).toBe(migrationLines.length);

    // Each worker writes its own log: the last request's line may come before an earlier one's.
    const outcomes: Outcome[] = [];
    for (let i = 0; i < 10; i++) {
      outcomes.push(await query());
    }
    for (const o of outcomes) {
      expect(o.status).toBe(200);
      expect(JSON.parse(o.body).data.products.paginatorInfo.total).toBe(4);
    }
    for (const { id } of outcomes) await server.waitForLog((l) => l.msg === 'request' && l.reqId === id);
    const pids = new Set(outcomes.map((o) => answeredBy(o.id)));
    expect(pids).toEqual(new Set(workerPids));
  });

  it('reports the metrics of the whole instance, whichever worker takes the scrape', async () => {
    const graphqlOk =
      'http_requests_total{method="POST",route="/graphql",operation="ClusterProducts",status="200",tenant="default"}';
    const before = [];
    for (let i = 0; i < 2; i++) {
      const res = await scrape();
      expect(res.status).toBe(200);
      before.push(sample(res.body, graphqlOk) ?? 0);
    }
    expect(before[0]).toBe(before[1]);

    const sent = 6;
    for (let i = 0; i < sent; i++) {
      expect((await query()).status).toBe(200);
    }
    const scrapes: { pid: number | undefined; text: string }[] = [];
    for (let i = 0; i < 2; i++) {
      const res = await scrape();
      expect(res.status).toBe(200);
      await server.waitForLog((l) => l.msg === 'request' && l.reqId === res.id);
      scrapes.push({ pid: answeredBy(res.id), text: res.body });
    }
    // Each worker answered one scrape, and each counted every worker's requests.
    expect(new Set(scrapes.map((s) => s.pid))).toEqual(new Set(workerPids));
    for (const { text } of scrapes) {
      expect(sample(text, graphqlOk)).toBe(before[0]! + sent);
      expect(sample(text, 'auth_logins_total{outcome="ok"}')).toBe(1);
    }
  });

  it('restarts a worker that dies, and keeps serving meanwhile', async () => {
    const [victim, survivor] = workerPids as [number, number];
    process.kill(victim, 'SIGKILL');
    await server.waitForLog((l) => l.msg === 'worker exited unexpectedly' && l.workerPid === victim);
    await server.waitForLog((l) => l.msg === 'restarting worker');
    const started = await server.waitForLog((l) => l.msg === 'worker started' && !workerPids.includes(l.workerPid));
    const replacement = started.workerPid as number;
    // Forked, but still loading its code: a scrape must not wait for it (nor fail).
    const scrapedMeanwhile = await scrape();
    expect(scrapedMeanwhile.status).toBe(200);
    // The replacement is not listening yet: the survivor takes everything meanwhile.
    const during = await query();
    expect(during.status).toBe(200);
    await server.waitForLog((l) => l.msg === 'request' && l.reqId === during.id);
    expect(answeredBy(during.id)).toBe(survivor);
    await server.waitForLog((l) => l.msg === 'ready' && l.pid === replacement, 60_000);
    workerPids = [survivor, replacement];

    const outcomes: Outcome[] = [];
    for (let i = 0; i < 4; i++) outcomes.push(await query());
    expect(outcomes.map((o) => o.status)).toEqual([200, 200, 200, 200]);
    for (const { id } of outcomes) await server.waitForLog((l) => l.msg === 'request' && l.reqId === id);
    expect(new Set(outcomes.map((o) => answeredBy(o.id)))).toEqual(new Set(workerPids));
  }, 90_000);

  it('on SIGTERM under load, every worker finishes what it accepted and the instance exits 0', async () => {
    const outcomes: Outcome[] = [];
    let running = true;
    const keepAlive = new http.Agent({ keepAlive: true, maxSockets: 3 });
    const client = async (agent: http.Agent | false) => {
      while (running) {
        const o = await query(agent);
        outcomes.push(o);
        if (o.error === 'ECONNREFUSED') return;
      }
    };
    const clients = [client(keepAlive), client(keepAlive), client(keepAlive), client(false), client(false)];
    while (outcomes.length < 30) await new Promise((r) => setTimeout(r, 10));

    server.child.kill('SIGTERM');
    const { code, signal } = await server.exited;
    running = false;
    await Promise.all(clients);
    keepAlive.destroy();

    expect({ code, signal }).toEqual({ code: 0, signal: null });
    // Accepted: a worker wrote the request's access line. Each of those got its whole 200.
    const accepted = new Set(server.logs.filter((l) => l.msg === 'request').map((l) => l.reqId as string));
    const failedAccepted = outcomes.filter((o) => accepted.has(o.id) && !(o.complete && o.status === 200));
    const unexplained = outcomes.filter(
      (o) => !accepted.has(o.id) && !['ECONNREFUSED', 'ECONNRESET', 'EPIPE'].includes(o.error ?? ''),
    );
    expect(failedAccepted).toEqual([]);
    expect(unexplained).toEqual([]);

    // The signal reached both workers through the primary; each drained and stopped cleanly.
    expect(server.logs.some((l) => l.msg === 'shutting down' && l.pid === primaryPid())).toBe(true);
    // From the first process's line on: a worker's line can reach the shared output before the primary's.
    const stopIndex = server.logs.findIndex((l) => l.msg === 'shutting down');
    const after = server.logs.slice(stopIndex);
    for (const pid of workerPids) {
      expect(after.some((l) => l.msg === 'shutting down' && l.pid === pid)).toBe(true);
      expect(after.some((l) => l.msg === 'worker exited' && l.workerPid === pid && l.code === 0)).toBe(true);
    }
    // Work was still going on after the signal and was allowed to finish.
    expect(after.some((l) => l.msg === 'request' && l.status === 200)).toBe(true);
    expect(after.some((l) => l.msg === 'stopped' && l.pid === primaryPid())).toBe(true);
    expect(after.some((l) => l.msg === 'worker started')).toBe(false);
  }, 60_000);
});

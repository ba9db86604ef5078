import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { encodeCursor } from '../../src/modules/catalog/tools.ts';
import { prepareDataset } from '../lib/dataset.ts';
import { ticksToMs, treeTicks } from '../lib/proc.ts';
import { startReplicaPair } from '../lib/replica-pair.ts';
import { stopServer, type Server } from '../lib/service-process.ts';
import { emptyTotals, runCase, type CaseContext, type CaseTotals, type CpuMeter } from './case-runner.ts';
import { PgMonitor } from './pg-monitor.ts';
import { COLD_QUERIES, HOT_QUERIES, QUERY_LABELS, requestBodies, type QueryName } from './queries.ts';
import { startService } from './servers.ts';
import type { ServiceMode, Settings } from './settings.ts';
import { verify } from './verify.ts';
import { ensureWrk } from './wrk.ts';

// npm run bench -- --replica: what a read replica takes off the primary and what routing costs the service.
// A throwaway primary and hot standby (scripts/lib/replica-pair.ts), the bench catalogue seeded into the
// primary and replayed by the standby; then each mode's queries on a service started per case, reading the
// primary only, and reading GraphQL queries from the standby (DATABASE_REPLICA_URLS). CPU is counted per
// cluster: each postmaster and its children (backends, WAL sender and receiver, startup, checkpointer).

const DB = 'pcs_bench';
const CASES = ['primary only', 'with standby'] as const;
type Case = (typeof CASES)[number];
const METRICS_TOKEN = `bench-${crypto.randomUUID()}`;
/** Bodies made of product ids and cursors only (no selections, searches or name cursors to load). */
const SUPPORTED: readonly QueryName[] = ['Q0', 'Q1', 'Q2', 'Q3', 'Q2t', 'Q3t', 'Q1z', 'Q2z'];
const MODE_QUERIES: Record<ServiceMode, readonly QueryName[]> = {
  miss: COLD_QUERIES,
  cold: COLD_QUERIES,
  // The Zipf queries: Q0 and Q3 on the hot service are one cached answer, the same with or without a standby.
  hot: HOT_QUERIES.filter((q) => !COLD_QUERIES.includes(q)),
};

/** The data directory's postmaster.pid names the cluster's postmaster; its children are the cluster's processes. */
async function postmasterPid(url: string): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ data_directory: string }>('SHOW data_directory');
    const pidFile = fs.readFileSync(path.join(rows[0]!.data_directory, 'postmaster.pid'), 'utf8');
    return Number(pidFile.split('\n')[0]);
  } finally {
    await client.end();
  }
}

/** cutime + cstime of a process: CPU of its children that exited and were reaped. */
function reapedTicks(pid: number): number {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(fields[13]) + Number(fields[14]);
}

/**
 * A cluster's CPU: the postmaster's tree, plus children that exited meanwhile (an autovacuum worker, a backend
 * whose connection closed), which the postmaster reaps into its cutime.
 */
function clusterMeter(postmaster: number): CpuMeter {
  return () => {
    const before = treeTicks(postmaster);
    const reapedBefore = reapedTicks(postmaster);
    return () => {
      const after = treeTicks(postmaster);
      let ticks = reapedTicks(postmaster) - reapedBefore;
      for (const [pid, now] of after) ticks += now - (before.get(pid) ?? 0);
      // An exited child's whole time is in cutime now: only what it spent after `before` counts.
      for (const [pid, was] of before) if (!after.has(pid)) ticks -= was;
      return ticks;
    };
  };
}

/** Both clusters' monitors as one: cases start and end with both quiet and their statistics flushed. */
function bothClusters(primary: PgMonitor, standby: PgMonitor): CaseContext['monitor'] {
  return {
    backendPids: () => primary.backendPids(),
    // Transactions on either server: a read moved to the standby still counts.
    committed: async () => (await primary.committed()) + (await standby.committed()),
    drain: async (pids) => {
      await primary.drain(pids);
      await standby.drain(pids);
    },
    flush: async (pids) => {
      await primary.flush(pids);
      await standby.flush(pids);
    },
  };
}

/** db_reads_total from the service's /metrics: GraphQL queries' statements, on the primary and on standbys. */
async function readsOf(server: Server): Promise<{ primary: number; standby: number }> {
  const res = await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`/metrics answered ${res.status}: ${text.slice(0, 200)}`);
  const reads = { primary: 0, standby: 0 };
  for (const [, target, n] of text.matchAll(/^db_reads_total\{target="([^"]*)"\} (\S+)$/gm))
    reads[target === 'primary' ? 'primary' : 'standby'] += Number(n);
  return reads;
}

interface Reads {
  primary: number;
  standby: number;
  /** xact_commit of the standby's bench database over the cases (the service's monitor polls included). */
  standbyTransactions: number;
}

export async function runReplicaBench(
  settings: Settings,
  quick: boolean,
  log: (line: string) => void,
): Promise<number> {
  for (const q of settings.queries)
    if (!SUPPORTED.includes(q)) throw new Error(`--replica runs ${SUPPORTED.join(', ')}; not ${q}`);
  const queriesOf = (mode: ServiceMode) => settings.queries.filter((q) => MODE_QUERIES[mode].includes(q));
  const modes = settings.modes.filter((m) => queriesOf(m).length > 0);
  if (modes.length === 0) throw new Error('--replica: no query of --queries runs in the --mode given');
  const wrk = ensureWrk(log);
  const loadBefore = os.loadavg();
  const started = new Date();
  log('starting a throwaway primary and hot standby (scripts/lib/replica-pair.ts)...');
  // PostgreSQL's default shared_buffers (the pair's is 32MB), as on the bench's usual server.
  const pair = await startReplicaPair({ settings: { shared_buffers: '128MB' } });
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'pcs-bench-replica-'));
  const monitors: PgMonitor[] = [];
  const servers = new Set<Server>();
  const results = new Map<string, CaseTotals>();
  const reads = new Map<string, Reads>();
  try {
    await pair.createDatabase(DB);
    const primaryUrl = pair.primaryUrl(DB);
    const standbyUrl = pair.standbyUrl(DB);
    const dataset = await prepareDataset(primaryUrl, settings.products, log);
    log(`seeded ${dataset.seededNow} products into the primary in ${(dataset.seedMs / 1000).toFixed(1)} s`);
    const replayStarted = Date.now();
    await pair.waitForReplay(600_000);
    log(`the standby replayed it ${((Date.now() - replayStarted) / 1000).toFixed(1)} s later`);
    const { token } = dataset.tokens[0]!;
    const postmasters = {
      primary: await postmasterPid(pair.primaryUrl()),
      standby: await postmasterPid(pair.standbyUrl()),
    };
    const primaryMonitor = new PgMonitor(primaryUrl, DB);
    const standbyMonitor = new PgMonitor(standbyUrl, DB);
    for (const m of [primaryMonitor, standbyMonitor]) {
      await m.connect();
      monitors.push(m);
    }
    const envOf: Record<Case, Record<string, string>> = {
      'primary only': { METRICS_TOKEN },
      'with standby': { METRICS_TOKEN, DATABASE_REPLICA_URLS: standbyUrl },
    };
    const start = async (mode: ServiceMode, c: Case) => {
      const server = await startService({ ...settings, url: primaryUrl }, false, mode, envOf[c]);
      servers.add(server);
      return { ...server, name: c };
    };
    const stop = async (server: Server) => {
      await stopServer(server);
      for (const s of servers) if (s.child === server.child) servers.delete(s);
    };

    // Every distinct request must get the same bytes with and without the standby before any load.
    const files = new Map<QueryName, string>();
    const verifiers = [await start(modes[0]!, 'primary only'), await start(modes[0]!, 'with standby')];
    try {
      for (const q of new Set(modes.flatMap(queriesOf))) {
        const bodies = requestBodies(q, dataset.productIds, settings.distinct, (id) => encodeCursor('product', id));
        const distinct = [...new Set(bodies)].slice(0, settings.distinct);
        const problems = await verify(q, distinct, token, verifiers);
        if (problems.length > 0) {
          log(`MISMATCH ${q}: the primary and the standby answer differently:\n${problems.join('\n')}`);
          return 1;
        }
        log(`${q}: ${bodies.length} requests (${distinct.length} distinct checked), primary only == with standby`);
        const file = path.join(tmp, `${q}.jsonl`);
        fs.writeFileSync(file, `${bodies.join('\n')}\n`);
        files.set(q, file);
      }
    } finally {
      for (const s of verifiers) await stop(s);
    }

    const ctx: CaseContext = {
      monitor: bothClusters(primaryMonitor, standbyMonitor),
      serverPids: [],
      warmup: settings.warmup,
      duration: settings.duration,
      log,
      extraCpu: { primary: clusterMeter(postmasters.primary), standby: clusterMeter(postmasters.standby) },
    };
    const { threads, connections } = settings;
    log(
      `load: wrk -t${threads} -c${connections}, warm-up ${settings.warmup} s + ${settings.duration} s per case, ${settings.rounds} round(s), a service started per mode and case`,
    );
    for (let round = 0; round < settings.rounds; round++) {
      for (const mode of modes) {
        log(`round ${round + 1}, ${mode}: ${queriesOf(mode).join(', ')}`);
        // Alternate which case goes first so neither always inherits warmer caches.
        for (const c of round % 2 === 0 ? CASES : [...CASES].reverse()) {
          const server = await start(mode, c);
          try {
            const transactionsBefore = await standbyMonitor.committed();
            for (const q of queriesOf(mode)) {
              const key = `${mode}/${q}/${c}`;
              if (!results.has(key)) results.set(key, emptyTotals());
              const load = { wrk, threads, connections, bodiesFile: files.get(q)!, token };
              await runCase({ ...ctx, serverPids: [server.child.pid!] }, load, server, results.get(key)!);
            }
            const r = reads.get(`${mode}/${c}`) ?? { primary: 0, standby: 0, standbyTransactions: 0 };
            const now = await readsOf(server);
            r.primary += now.primary;
            r.standby += now.standby;
            r.standbyTransactions += (await standbyMonitor.committed()) - transactionsBefore;
            reads.set(`${mode}/${c}`, r);
          } finally {
            await stop(server);
          }
        }
      }
    }
    const loads = (l: number[]) => l.map((x) => x.toFixed(1)).join(' ');
    const header =
      `${started.toISOString().slice(0, 16).replace('T', ' ')} UTC, ${machine()}, load average ${loads(loadBefore)} ` +
      `at the start, ${loads(os.loadavg())} at the end; ${settings.products} products, wrk -t${threads} -c${connections}, ` +
      `${settings.rounds} x ${settings.duration} s per case (after ${settings.warmup} s warm-up), service workers ${settings.workers}`;
    const { text, ok } = report(header, settings, modes, queriesOf, results, reads);
    process.stdout.write(text);
    if (quick)
      process.stdout.write(
        '--quick: a few seconds per case; the figures are indicative, the run checks correctness.\n',
      );
    return ok ? 0 : 1;
  } finally {
    for (const s of servers) await stopServer(s);
    for (const m of monitors) await m.end();
    await pair.stop();
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

function machine(): string {
  const cpus = os.cpus();
  return `${cpus.length} x ${cpus[0]?.model ?? 'cpu'}, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}`;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

function report(
  header: string,
  settings: Settings,
  modes: ServiceMode[],
  queriesOf: (mode: ServiceMode) => QueryName[],
  results: Map<string, CaseTotals>,
  reads: Map<string, Reads>,
): { text: string; ok: boolean } {
  let ok = true;
  const rate = (t: CaseTotals) => t.requests / t.seconds;
  // CPU ms per request: the service's processes, and each cluster's.
  const node = (t: CaseTotals) => ticksToMs(t.nodeTicks) / t.requests;
  const primary = (t: CaseTotals) => ticksToMs(t.extraTicks.primary ?? 0) / t.requests;
  const standby = (t: CaseTotals) => ticksToMs(t.extraTicks.standby ?? 0) / t.requests;
  const cases = [
    '| mode | query | case | req/s | p50 ms | p99 ms | node CPU ms/req | primary PG CPU ms/req | standby PG CPU ms/req | transactions/req | errors/bad |',
    '|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|',
  ];
  const effects = [
    '| mode | query | req/s with ÷ without | routing overhead: node CPU/req with ÷ without (goal ≤ 1.05) | primary PG CPU ms/req without → with | taken off the primary, ms/req | standby PG CPU ms/req |',
    '|---|---|---:|---:|---:|---:|---:|',
  ];
  for (const mode of modes) {
    for (const q of queriesOf(mode)) {
      const totalsOf = (c: Case) => results.get(`${mode}/${q}/${c}`)!;
      for (const c of CASES) {
        const t = totalsOf(c);
        if (t.errors > 0 || t.bad > 0) ok = false;
        cases.push(
          `| ${mode} | ${q} | ${c} | ${rate(t).toFixed(0)} | ${median(t.p50).toFixed(2)} | ${median(t.p99).toFixed(2)} | ` +
            `${node(t).toFixed(3)} | ${primary(t).toFixed(3)} | ${standby(t).toFixed(3)} | ` +
            `${(t.statements / t.statementRequests).toFixed(2)} | ${t.errors}/${t.bad} |`,
        );
      }
      const [without, withStandby] = [totalsOf('primary only'), totalsOf('with standby')];
      effects.push(
        `| ${mode} | ${q} | ${(rate(withStandby) / rate(without)).toFixed(2)} | ${(node(withStandby) / node(without)).toFixed(2)} | ` +
          `${primary(without).toFixed(3)} → ${primary(withStandby).toFixed(3)} | ` +
          `${(primary(without) - primary(withStandby)).toFixed(3)} | ${standby(withStandby).toFixed(3)} |`,
      );
    }
  }
  const landed = [
    '| mode | case | GraphQL statements on the standby (db_reads_total) | on the primary | standby share | standby transactions (pg_stat_database) |',
    '|---|---|---:|---:|---:|---:|',
  ];
  for (const mode of modes) {
    for (const c of CASES) {
      const r = reads.get(`${mode}/${c}`)!;
      const share = r.standby + r.primary > 0 ? (100 * r.standby) / (r.standby + r.primary) : 0;
      landed.push(
        `| ${mode} | ${c} | ${r.standby} | ${r.primary} | ${share.toFixed(1)} % | ${r.standbyTransactions} |`,
      );
      // Reads that should land on the standby and did not: the comparison would measure nothing.
      if (c === 'with standby' && r.standby === 0) ok = false;
    }
  }
  const labels = [...new Set(modes.flatMap(queriesOf))].map((q) => `${q}: ${QUERY_LABELS[q]}`);
  const text =
    `\n${header}\n\n${cases.join('\n')}\n\n${effects.join('\n')}\n\n${landed.join('\n')}\n\n` +
    `${labels.join('\n')}\nmiss: response cache off, token cache on; hot: both caches on` +
    `${settings.hotTokenCache ? '' : ' (token cache off)'}. CPU per cluster: its postmaster and every child (backends, WAL sender/receiver, startup, checkpointer, autovacuum).\n`;
  if (!ok) process.stderr.write('FAILED: errors or bad responses during the load, or no read on the standby\n');
  return { text, ok };
}

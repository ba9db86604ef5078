import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { encodeCursor } from '../../src/modules/catalog/index.ts';
import { ensureDatabase, prepareDataset, revokeToken } from '../lib/dataset.ts';
import { stopServer, type Server } from '../lib/service-process.ts';
import { emptyTotals, runCase, type CaseContext, type CaseTotals } from './case-runner.ts';
import { PgMonitor } from './pg-monitor.ts';
import { COLD_QUERIES, HOT_QUERIES, QUERY_LABELS, requestBodies, type QueryName } from './queries.ts';
import { printReport } from './report.ts';
import { startReference, startService } from './servers.ts';
import { parseSettings } from './settings.ts';
import { verify } from './verify.ts';
import { ensureWrk } from './wrk.ts';

/**
 * npm run bench [-- --quick] : the service against the reference server, same load,
 * same run, alternating. See BENCHMARKS.md for the method.
 */

const { settings, quick, profile, json } = parseSettings();
const log = (line: string) => process.stderr.write(`${line}\n`);

async function main(): Promise<number> {
  const wrk = ensureWrk(log);
  const dbName = new URL(settings.url).pathname.slice(1);
  if (await ensureDatabase(settings.url)) log(`created database ${dbName}`);
  const dataset = await prepareDataset(settings.url, settings.products, log);
  const { token, tokenId } = dataset.tokens[0]!;
  if (dataset.seededNow > 0) log(`seeded ${dataset.seededNow} products in ${(dataset.seedMs / 1000).toFixed(1)} s`);

  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'pcs-bench-'));
  const servers: Server[] = [];
  const monitor = new PgMonitor(settings.url, dbName);
  await monitor.connect();
  const results = new Map<string, CaseTotals>();
  let queries: QueryName[] = [];
  try {
    if (settings.mode !== 'cold') servers.push(await startService(settings, profile, 'hot'));
    if (settings.mode !== 'hot') servers.push(await startService(settings, profile, 'cold'));
    servers.push(await startReference(settings));
    const runsOn = (q: QueryName) =>
      servers.filter((s) => s.name === 'reference' || (s.name === 'hot' ? HOT_QUERIES : COLD_QUERIES).includes(q));
    queries = settings.queries.filter((q) => runsOn(q).length > 1);

    // Every distinct request must get the same bytes from both servers before any load.
    let mismatch = false;
    const files = new Map<QueryName, string>();
    for (const q of queries) {
      const bodies = requestBodies(q, dataset.productIds, settings.distinct, (id) => encodeCursor('product', id));
      // Zipf draws repeat: the distinct ones are checked, up to the usual count (which also warms the hot cache).
      const distinct = [...new Set(bodies)].slice(0, settings.distinct);
      const problems = await verify(q, distinct, token, runsOn(q));
      if (problems.length > 0) {
        mismatch = true;
        log(`MISMATCH ${q}: the service and the reference disagree:\n${problems.join('\n')}`);
        continue;
      }
      log(`${q}: ${bodies.length} requests (${distinct.length} distinct checked), ${runsOn(q).map((s) => s.name).join(' == ')} byte for byte`);
      const file = path.join(tmp, `${q}.jsonl`);
      fs.writeFileSync(file, `${bodies.join('\n')}\n`);
      files.set(q, file);
    }
    if (mismatch) return 1;

    const { threads, connections } = settings;
    log(
      `load: wrk -t${threads} -c${connections}, warm-up ${settings.warmup} s + ${settings.duration} s per case, ${settings.rounds} round(s), alternating`,
    );
    const ctx: CaseContext = {
      monitor,
      serverPids: servers.map((s) => s.child.pid!),
      warmup: settings.warmup,
      duration: settings.duration,
      log,
    };
    for (let round = 0; round < settings.rounds; round++) {
      for (const q of queries) {
        log(`round ${round + 1} ${q}: ${QUERY_LABELS[q]}`);
        const load = { wrk, threads, connections, bodiesFile: files.get(q)!, token };
        // Alternate which server goes first so neither always inherits a warmer cache.
        const order = round % 2 === 0 ? runsOn(q) : [...runsOn(q)].reverse();
        for (const server of order) {
          const key = `${q}/${server.name}`;
          if (!results.has(key)) results.set(key, emptyTotals());
          await runCase(ctx, load, server, results.get(key)!);
        }
      }
    }
  } finally {
    await monitor.end();
    for (const s of servers) await stopServer(s);
    await revokeToken(settings.url, tokenId);
    fs.rmSync(tmp, { recursive: true, force: true });
  }

  if (printReport({ ...settings, queries }, results, { quick, json })) return 0;
  log('FAILED: errors, non-2xx or bad responses during the load (see errors/bad)');
  return 1;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    log(err instanceof Error ? (err.stack ?? err.message) : String(err));
    process.exit(1);
  },
);

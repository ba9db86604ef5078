import fs from 'node:fs';
import os from 'node:os';
import type { CaseTotals } from './case-runner.ts';
import { ticksToMs } from '../lib/proc.ts';
import { CONFIGURE_BASELINE, COUNTED_BASELINE, FIND_BASELINE, QUERY_LABELS, type QueryName } from './queries.ts';
import type { Settings } from './settings.ts';

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? NaN : s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

const HEADER = [
  'query',
  'server',
  'req/s',
  'p50 ms',
  'p99 ms',
  'node CPU ms/req',
  'PG CPU ms/req',
  'wrk CPU ms/req',
  'SQL/req',
  'errors/bad',
  '×ref',
];
const SERVERS = ['reference', 'cold', 'miss', 'hot', 'postgraphile'] as const;

/**
 * Prints the machine, the settings, one Markdown row per query and server, and a summary of each
 * service's throughput as a ratio to the reference, to stdout (and the rows to --json); results are
 * keyed `${query}/${server}`. Returns false when the load met errors or bad responses.
 */
export function printReport(
  settings: Settings,
  results: Map<string, CaseTotals>,
  opts: { quick: boolean; json?: string },
): boolean {
  let clean = true;
  const rows: string[][] = [];
  const json: Record<string, unknown>[] = [];
  const summary: string[][] = [];
  // The summary's columns: the servers of this run beside the reference ("-": not run for that query).
  const others = SERVERS.filter(
    (name) => name !== 'reference' && [...results.keys()].some((k) => k.endsWith(`/${name}`)),
  );
  for (const q of settings.queries) {
    // Configure has no reference: its ratio is to product(id) on the same server, below.
    const ref = results.get(`${q}/reference`);
    const rps = (t: CaseTotals) => t.requests / t.seconds;
    const ratios: Record<string, string> = {};
    for (const name of SERVERS) {
      const t = results.get(`${q}/${name}`);
      if (!t) continue;
      const row = {
        query: q,
        server: name,
        rps: rps(t),
        p50: median(t.p50),
        p99: median(t.p99),
        nodeCpu: ticksToMs(t.nodeTicks) / t.requests,
        pgCpu: ticksToMs(t.pgTicks) / t.requests,
        wrkCpu: ticksToMs(t.wrkTicks) / t.requests,
        statements: t.statements / t.statementRequests,
        errors: t.errors,
        bad: t.bad,
        ratio: name === 'reference' || !ref ? null : rps(t) / rps(ref),
      };
      if (row.ratio !== null) ratios[name] = `${row.ratio.toFixed(2)}×`;
      json.push(row);
      if (t.errors > 0 || t.bad > 0) clean = false;
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
    if (ref) summary.push([q, rps(ref).toFixed(0), ...others.map((name) => ratios[name] ?? '-')]);
  }
  // Service-only queries beside a query on the same server: configure beside product(id) at full depth
  // (issue 23 asks for at least 0.8×), search and ordered pages beside the plain first page.
  const versus = (baselines: Partial<Record<QueryName, QueryName>>) => {
    const out: string[][] = [];
    for (const q of settings.queries) {
      const baseline = baselines[q];
      if (!baseline) continue;
      for (const name of SERVERS) {
        const c = results.get(`${q}/${name}`);
        const p = results.get(`${baseline}/${name}`);
        if (!c || !p) continue;
        const [cr, pr] = [c.requests / c.seconds, p.requests / p.seconds];
        out.push([`${q} / ${baseline}`, name, cr.toFixed(0), pr.toFixed(0), `${(cr / pr).toFixed(2)}×`]);
      }
    }
    return out;
  };
  const markdown = (head: string[], body: string[][]) =>
    [head, head.map(() => '---'), ...body].map((r) => `| ${r.join(' | ')} |`).join('\n');
  const ratioTable = (head: string[], body: string[][]) => (body.length > 0 ? `\n\n${markdown(head, body)}` : '');
  const table =
    `${markdown(HEADER, rows)}\n\n${markdown(['query', 'reference req/s', ...others], summary)}` +
    ratioTable(
      ['configure / product(id)', 'server', 'configure req/s', 'product(id) req/s', 'ratio'],
      versus(CONFIGURE_BASELINE),
    ) +
    ratioTable(['find / products(first: 20)', 'server', 'find req/s', 'Q3 req/s', 'ratio'], versus(FIND_BASELINE)) +
    ratioTable(['with total / without', 'server', 'with req/s', 'without req/s', 'ratio'], versus(COUNTED_BASELINE));
  const cpus = os.cpus();
  process.stdout.write(
    `\n${cpus.length} x ${cpus[0]?.model ?? 'cpu'}, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}, ` +
      `${settings.products} products, wrk -t${settings.threads} -c${settings.connections}, ${settings.rounds} x ${settings.duration} s per case (after ${settings.warmup} s warm-up)` +
      `, service workers ${settings.workers} (hot: response cache on${settings.hotCacheBytes ? ` with RESPONSE_CACHE_MAX_BYTES=${settings.hotCacheBytes}` : ''}, token cache ${settings.hotTokenCache ? 'on' : 'off'}; cold: both off; miss: response cache off, token cache on)${others.includes('postgraphile') ? ', postgraphile: PostGraphile 5 (amber preset, grafserv on node:http, one process, no auth) for Q0..Q3' : ''}${settings.servicePool ? `, service pool ${settings.servicePool} per worker` : ''}, reference pool ${settings.referencePool}\n` +
      `service requests: ${settings.trusted ? "trusted documents (documentId); the reference's and the peer's: full documents" : 'full documents (query)'}\n\n${table}\n\n`,
  );
  for (const q of settings.queries) process.stdout.write(`${q}: ${QUERY_LABELS[q]}\n`);
  if (opts.quick)
    process.stdout.write('--quick: a few seconds per case; the figures are indicative, the run checks correctness.\n');
  if (opts.json) fs.writeFileSync(opts.json, JSON.stringify({ settings, rows: json }, null, 2));
  return clean;
}

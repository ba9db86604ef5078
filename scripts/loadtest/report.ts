import type { Result } from 'autocannon';
import { percentile } from '../lib/stats.ts';
import type { EditorPhase } from './editor.ts';
import type { StormTotals } from './storm.ts';

// What npm run loadtest prints: one run's figures, or --compare's two phases and their ratios.

export interface Phase {
  label: string;
  result: Result;
  latencies: number[];
  graphqlErrors: number;
  editor?: EditorPhase;
  /** --tenants: what the other company's storm got beside these readers. */
  storm?: StormTotals;
}

export const failures = (p: Phase) => p.result.errors + p.result.timeouts + p.result.non2xx + p.graphqlErrors;
const ms = (sorted: number[], q: number) => (sorted.length ? percentile(sorted, q).toFixed(1) : '-');

const QUERY_LABEL = {
  product: 'product(id) full depth',
  page: 'products(first: 20, after) full depth',
  mix: '78 % pages, 22 % product(id), full depth',
};

/** How the readers (and the editor) were run: the headings of the figures. */
export interface RunDescription {
  query: keyof typeof QUERY_LABEL;
  distribution: string;
  connections: number;
  duration: number;
  writesPerSecond: number;
}

/** The summary of a single run: every figure of the readers, then the editor's. */
export function printTable(run: RunDescription, p: Phase): void {
  const { result } = p;
  const rows: [string, string][] = [
    ['query', `${QUERY_LABEL[run.query]}, ${run.distribution}`],
    ['connections', String(run.connections)],
    ['duration', `${result.duration.toFixed(1)} s`],
    ['requests', String(result.requests.total)],
    [
      'req/s (mean / stdev / min)',
      `${result.requests.average.toFixed(0)} / ${result.requests.stddev.toFixed(0)} / ${result.requests.min}`,
    ],
    ['latency p50', `${ms(p.latencies, 50)} ms`],
    ['latency p90', `${ms(p.latencies, 90)} ms`],
    ['latency p95', `${ms(p.latencies, 95)} ms`],
    ['latency p99', `${ms(p.latencies, 99)} ms`],
    ['latency max', `${result.latency.max} ms`],
    ['throughput', `${(result.throughput.average / 2 ** 20).toFixed(2)} MiB/s`],
    ['connection errors', String(result.errors)],
    ['timeouts', String(result.timeouts)],
    ['non-2xx', String(result.non2xx)],
    ['GraphQL errors', String(p.graphqlErrors)],
  ];
  if (p.editor) {
    const e = p.editor;
    rows.push(
      ['writes (updateCustomisation)', `${e.done} done of ${e.scheduled} sent, ${run.writesPerSecond}/s`],
      ['write latency p50 / p95', `${ms(e.latencies, 50)} / ${ms(e.latencies, 95)} ms`],
      ['write CONFLICTs', String(e.conflicts)],
      ['write errors', String(e.errors)],
    );
  }
  const width = Math.max(...rows.map(([k]) => k.length));
  process.stdout.write(`\n${rows.map(([k, v]) => `${k.padEnd(width)}  ${v}`).join('\n')}\n`);
}

/** --compare: one row a phase, then the ratios the goal is stated in. */
export function printComparison(run: RunDescription, without: Phase, withWrites: Phase): void {
  const head = ['', 'req/s', 'p50 ms', 'p95 ms', 'p99 ms', 'errors', 'writes', 'write p50', 'write p95', 'CONFLICTs'];
  const row = (p: Phase) => [
    p.label,
    p.result.requests.average.toFixed(0),
    ms(p.latencies, 50),
    ms(p.latencies, 95),
    ms(p.latencies, 99),
    String(failures(p)),
    p.editor ? `${p.editor.done}/${p.editor.scheduled}` : '-',
    p.editor ? ms(p.editor.latencies, 50) : '-',
    p.editor ? ms(p.editor.latencies, 95) : '-',
    p.editor ? String(p.editor.conflicts) : '-',
  ];
  const table = [head, row(without), row(withWrites)];
  const widths = head.map((_, i) => Math.max(...table.map((r) => r[i]!.length)));
  const line = (r: string[]) => r.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  const rps = withWrites.result.requests.average / without.result.requests.average;
  const p95 = percentile(withWrites.latencies, 95) / percentile(without.latencies, 95);
  // The goal: with the writes, the readers keep at least 0.8x of their throughput and of their p95
  // (their p95 grows to at most 1 / 0.8 = 1.25x).
  const met = rps >= 0.8 && p95 <= 1.25;
  process.stdout.write(
    `\n${QUERY_LABEL[run.query]}, ${run.distribution}, ${run.connections} connections, ${run.duration} s a phase\n` +
      `${table.map(line).join('\n')}\n\n` +
      `with / without writes: req/s ${rps.toFixed(2)}x, p95 ${p95.toFixed(2)}x ` +
      `(goal: req/s >= 0.80x and p95 <= 1.25x: ${met ? 'met' : 'not met'})\n`,
  );
}

/** --tenants: the readers alone and beside the storm, the p95 ratio the goal is stated in, then the storm. */
export function printNeighbours(run: RunDescription, alone: Phase, beside: Phase, stormConnections: number): void {
  const head = ['', 'req/s', 'p50 ms', 'p95 ms', 'p99 ms', 'max ms', 'errors'];
  const row = (p: Phase) => [
    p.label,
    p.result.requests.average.toFixed(0),
    ms(p.latencies, 50),
    ms(p.latencies, 95),
    ms(p.latencies, 99),
    String(p.result.latency.max),
    String(failures(p)),
  ];
  const table = [head, row(alone), row(beside)];
  const widths = head.map((_, i) => Math.max(...table.map((r) => r[i]!.length)));
  const line = (r: string[]) => r.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  const p95 = percentile(beside.latencies, 95) / percentile(alone.latencies, 95);
  const storm = beside.storm!;
  const seconds = beside.result.duration;
  const statuses = [...storm.byStatus].sort((a, b) => a[0] - b[0]).map(([s, n]) => `${s}: ${n}`);
  const refusals = [...storm.refusals].sort((a, b) => b[1] - a[1]).map(([m, n]) => `  ${String(n).padStart(8)}  ${m}`);
  const e = storm.editor;
  process.stdout.write(
    `\nsteady readers: ${QUERY_LABEL[run.query]}, ${run.distribution}, ${run.connections} connections, ${run.duration} s a phase\n` +
      `${table.map(line).join('\n')}\n\n` +
      `beside / alone: p95 ${p95.toFixed(2)}x (goal: <= 1.50x: ${p95 <= 1.5 ? 'met' : 'not met'})\n\n` +
      `storm: ${stormConnections} connections, ${storm.requests} answers (${(storm.requests / seconds).toFixed(0)}/s); by status: ${statuses.join(', ')}\n` +
      `storm 429s by message:\n${refusals.join('\n') || '  none'}\n` +
      (e
        ? `storm writes: ${e.done} done of ${e.scheduled} sent, p50 / p95 ${ms(e.latencies, 50)} / ${ms(e.latencies, 95)} ms, ${e.conflicts} CONFLICTs, ${e.errors} errors${e.firstError ? ` (first: ${e.firstError})` : ''}\n`
        : ''),
  );
}

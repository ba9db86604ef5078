import http from 'node:http';
import { residentBytes } from '../lib/proc.ts';
import { percentile } from '../lib/stats.ts';
import { postGraphQL } from './http.ts';
import { describeOutput } from './server-output.ts';
import type { Target } from './target.ts';

/** One line of the report: one observation of one finding. */
export interface Row {
  finding: string;
  sent: string;
  status: string;
  bytes: string;
  ms: string;
  rssBefore?: string;
  rssAfter?: string;
  rssPeak?: string;
  probe?: string;
  notes?: string;
}

export const COLUMNS: [keyof Row, string][] = [
  ['finding', '#'],
  ['sent', 'sent'],
  ['status', 'HTTP status'],
  ['bytes', 'response bytes'],
  ['ms', 'ms'],
  ['rssBefore', 'RSS before MB'],
  ['rssAfter', 'RSS after MB'],
  ['rssPeak', 'RSS peak MB'],
  ['probe', 'probe p50 / max ms, timeouts'],
  ['notes', 'notes'],
];

/** A Markdown cell: pipes and line breaks would end the cell or the row. */
const cell = (text: string | undefined) => (text ?? '').replace(/\|/g, '\\|').replace(/\r?\n/g, ' ');
export const formatRow = (row: Row) => `| ${COLUMNS.map(([key]) => cell(row[key])).join(' | ')} |`;

/** VmRSS of a process in MB; undefined when unknown or gone. */
export function rssMb(pid: number | undefined): number | undefined {
  const bytes = pid === undefined ? undefined : residentBytes(pid);
  return bytes === undefined ? undefined : bytes / 2 ** 20;
}
export const mb = (value: number | undefined) => (value === undefined ? '' : value.toFixed(0));
export const thousands = (n: number) => n.toLocaleString('en-US');

/**
 * Samples the server's RSS every 200 ms; past maxMb it kills our own server (the
 * machine must survive finding 1), and the rows that follow say so.
 */
export function sampleRss(target: Target, maxMb: number) {
  let peak = rssMb(target.pid);
  const timer = setInterval(() => {
    const now = rssMb(target.pid);
    if (now === undefined) return;
    peak = Math.max(peak ?? 0, now);
    if (now > maxMb) target.kill(`killed by the run: RSS ${now.toFixed(0)} MB passed --max-rss-mb ${maxMb}`);
  }, 200);
  return () => {
    clearInterval(timer);
    return peak;
  };
}

/**
 * An ordinary client while an attack runs: an authenticated product(id) every
 * 100 ms, each on a kept-alive connection, each given timeoutMs. Stopping waits
 * for the probes still in flight, so a stalled server shows as latency or timeouts.
 */
export function startProbe(target: Target, timeoutMs = 30_000) {
  const agent = new http.Agent({ keepAlive: true });
  const latencies: number[] = [];
  let timeouts = 0;
  const failures = new Map<string, number>();
  const inFlight = new Set<Promise<void>>();
  let n = 0;
  const fire = () => {
    const id = target.productIds[n++ % target.productIds.length]!;
    const query = 'query Probe($id: ID!) { product(id: $id) { id name } }';
    const p = postGraphQL(target.base, target.tokens[0], { query, variables: { id } }, { agent, timeoutMs }).then(
      (res) => {
        if (res.error === 'timeout') timeouts++;
        else if (res.status !== 200) {
          const why = res.status ? String(res.status) : (res.error ?? 'no answer');
          failures.set(why, (failures.get(why) ?? 0) + 1);
        } else latencies.push(res.ms);
      },
    );
    inFlight.add(p);
    void p.finally(() => inFlight.delete(p));
  };
  fire();
  const timer = setInterval(fire, 100);
  return async (): Promise<string> => {
    clearInterval(timer);
    await Promise.all(inFlight);
    agent.destroy();
    const sorted = latencies.sort((a, b) => a - b);
    const answered = sorted.length ? `${percentile(sorted, 50)} / ${sorted.at(-1)}` : '– / –';
    const failed = [...failures].map(([why, count]) => `, ${count} failed (${why})`).join('');
    return `${answered}, ${timeouts} of ${n} timed out (${timeoutMs / 1000} s)${failed}`;
  };
}

/**
 * Runs one observation and fills its RSS columns (sampled all along, for the
 * peak); `load` also runs the probe meanwhile, `logs` adds what the service
 * printed (waiting, probe stopped, until it stops). A server already gone gives a row saying so.
 */
export async function observe(
  target: Target,
  head: Pick<Row, 'finding' | 'sent'>,
  run: () => Promise<Omit<Row, 'finding' | 'sent'>>,
  opts: { load?: boolean; logs?: boolean; maxRssMb: number },
): Promise<Row> {
  const gone = target.gone();
  if (gone) return { ...head, status: '–', bytes: '–', ms: '–', notes: `not run: ${gone}` };
  const before = rssMb(target.pid);
  const stopSampler = sampleRss(target, opts.maxRssMb);
  const stopProbe = opts.load ? startProbe(target) : undefined;
  const result = await run();
  const probe = await stopProbe?.();
  const logged = opts.logs ? (await describeOutput(target.output)).summary : undefined;
  const after = rssMb(target.pid);
  // Sampled every 200 ms: the reading just taken may be higher still.
  const peak = Math.max(stopSampler() ?? 0, after ?? 0) || undefined;
  const died = target.gone();
  const notes = [result.notes, logged, died].filter(Boolean).join('; ');
  return {
    ...head,
    ...result,
    rssBefore: mb(before),
    rssAfter: result.rssAfter ?? mb(after),
    rssPeak: result.rssPeak ?? mb(peak),
    probe,
    notes,
  };
}

import { percentile } from '../lib/stats.ts';

export type Op = 'page' | 'product' | 'login' | 'logout';

/** Every request's latency, by operation and in the current report window, and the failures by kind. */
export class SoakStats {
  readonly latencies: Record<Op, number[]> = { page: [], product: [], login: [], logout: [] };
  readonly errors = new Map<string, number>();
  total = 0;
  private window: number[] = [];

  record(op: Op, ms: number, failure?: string): void {
    this.latencies[op].push(ms);
    this.window.push(ms);
    this.total++;
    if (failure !== undefined) this.errors.set(`${op}: ${failure}`, (this.errors.get(`${op}: ${failure}`) ?? 0) + 1);
  }

  /** The window's latencies, sorted; clients go on recording into a fresh one. */
  takeWindow(): number[] {
    const sorted = this.window.sort((a, b) => a - b);
    this.window = [];
    return sorted;
  }

  errorCount(): number {
    return [...this.errors.values()].reduce((a, b) => a + b, 0);
  }
}

export const mb = (b: number | undefined) => (b === undefined ? '?' : `${(b / 1024 / 1024).toFixed(1)} MB`);
const fmt = (ms: number) => (Number.isNaN(ms) ? '-' : `${ms.toFixed(1)}ms`);

/** Prints a line per window: requests so far and per second, errors, latency and the server's RSS. */
export function startReporter(
  stats: SoakStats,
  rss: () => Promise<number | undefined>,
  started: number,
  everyMs: number,
) {
  const rssSeries: string[] = [];
  let lastTotal = 0;
  const report = async () => {
    // Taken before the await below, while clients keep recording.
    const sorted = stats.takeWindow();
    const count = stats.total;
    const now = await rss();
    const elapsed = Math.round((Date.now() - started) / 1000);
    rssSeries.push(`${elapsed}s ${mb(now)}`);
    console.log(
      `t=${String(elapsed).padStart(4)}s  requests=${count} (+${count - lastTotal}, ${((count - lastTotal) / (everyMs / 1000)).toFixed(0)}/s)` +
        `  errors=${stats.errorCount()}  p50=${fmt(percentile(sorted, 50))} p99=${fmt(percentile(sorted, 99))}  rss=${mb(now)}`,
    );
    lastTotal = count;
  };
  // A failed RSS reading loses one report line, not the soak run.
  const timer = setInterval(() => void report().catch((err: unknown) => console.error('report failed:', err)), everyMs);
  return {
    /** Stops the reports; returns the RSS readings taken, for the summary. */
    stop(): string[] {
      clearInterval(timer);
      return rssSeries;
    },
  };
}

export function printSummary(
  stats: SoakStats,
  started: number,
  rssSeries: string[],
  finalRss: number | undefined,
): void {
  const { total, latencies, errors } = stats;
  console.log(
    `\n== ${total} requests in ${((Date.now() - started) / 1000).toFixed(0)} s, ${(total / ((Date.now() - started) / 1000)).toFixed(0)}/s`,
  );
  for (const op of Object.keys(latencies) as Op[]) {
    const sorted = latencies[op].sort((a, b) => a - b);
    console.log(
      `${op.padEnd(8)} n=${String(sorted.length).padStart(7)}  p50=${fmt(percentile(sorted, 50))}  p95=${fmt(percentile(sorted, 95))}  p99=${fmt(percentile(sorted, 99))}  max=${fmt(sorted.at(-1) ?? NaN)}`,
    );
  }
  const all = Object.values(latencies)
    .flat()
    .sort((a, b) => a - b);
  console.log(`all      p99=${fmt(percentile(all, 99))}`);
  console.log(`errors: ${errors.size === 0 ? 'none' : ''}`);
  for (const [what, n] of errors) console.log(`  ${n} × ${what}`);
  console.log(`RSS over time: ${rssSeries.join(', ')}; final ${mb(finalRss)}`);
}

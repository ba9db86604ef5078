import type { Exchange } from './http.ts';
import { observe, thousands, type Row } from './measure.ts';
import type { Target } from './target.ts';

/** What every finding gets: the target, the RSS guard, and where its rows go. */
export interface FindingContext {
  target: Target;
  maxRssMb: number;
  emit(row: Row): void;
  log(line: string): void;
}

export interface Finding {
  number: number;
  title: string;
  run(ctx: FindingContext): Promise<void>;
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * observe() and emit() in one, once the service has stopped printing what the
 * previous observation made it print: each row's output is its own.
 */
export async function record(
  ctx: FindingContext,
  head: Pick<Row, 'finding' | 'sent'>,
  run: () => Promise<Omit<Row, 'finding' | 'sent'>>,
  opts: { load?: boolean; logs?: boolean } = {},
): Promise<void> {
  ctx.log(`  ${head.finding}: ${head.sent}`);
  const output = ctx.target.output;
  if (output) {
    const { tailMs } = await output.settle();
    if (tailMs > 1_000) ctx.log(`    (waited ${(tailMs / 1000).toFixed(1)} s for the service to stop logging)`);
    output.reset();
  }
  ctx.emit(await observe(ctx.target, head, run, { ...opts, maxRssMb: ctx.maxRssMb }));
}

/** One exchange as row columns. */
export const columns = (x: Exchange) => ({
  status: x.status ? String(x.status) : `– (${x.error})`,
  bytes: thousands(x.bytes),
  ms: thousands(x.ms),
});

/** Several exchanges: statuses counted, bytes summed, ms until the last one ended. */
export function concurrentColumns(xs: readonly Exchange[], wallMs: number) {
  const counts = new Map<string, number>();
  for (const x of xs) {
    const key = x.status ? String(x.status) : `– (${x.error})`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return {
    status: [...counts].map(([status, n]) => `${status} ×${n}`).join(', '),
    bytes: thousands(xs.reduce((sum, x) => sum + x.bytes, 0)),
    ms: thousands(Math.round(wallMs)),
  };
}

/** Sends `fire` n times at once and waits for all of them. */
export async function concurrently(n: number, fire: () => Promise<Exchange>) {
  const started = performance.now();
  const xs = await Promise.all(Array.from({ length: n }, fire));
  return concurrentColumns(xs, performance.now() - started);
}

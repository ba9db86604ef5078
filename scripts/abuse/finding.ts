import type { Exchange } from './http.ts';
import { observe, thousands, type Row } from './measure.ts';
import { isJsonLine, type Target } from './target.ts';

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

/** observe() and emit() in one: the common case. */
export async function record(
  ctx: FindingContext,
  head: Pick<Row, 'finding' | 'sent'>,
  run: () => Promise<Omit<Row, 'finding' | 'sent'>>,
  load = false,
): Promise<void> {
  ctx.log(`  ${head.finding}: ${head.sent}`);
  ctx.emit(await observe(ctx.target, head, run, { load, maxRssMb: ctx.maxRssMb }));
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

/**
 * What the service printed since output.reset(), waiting a moment for lines
 * still in the pipe: non-JSON lines are stack traces and other unstructured text.
 */
export async function outputSince(target: Target): Promise<{ lines: string[]; summary: string }> {
  if (!target.output) return { lines: [], summary: 'output not captured (--url)' };
  await sleep(300);
  const lines = [...target.output.take()];
  const json = lines.filter(isJsonLine).map((l) => JSON.parse(l) as { level?: number; msg?: string; args?: unknown[] });
  const errors = json.filter((l) => (l.level ?? 0) >= 50);
  // Yoga's error lines carry the message in args; the first line of it is enough.
  const first = errors[0] && String(errors[0].args?.[0] ?? errors[0].msg).split('\n', 1)[0]!.slice(0, 60);
  const nonJson = thousands(lines.length - json.length);
  const errorLevel = `${thousands(errors.length)} error level${first ? `, first: "${first}"` : ''}`;
  return { lines, summary: `logged ${nonJson} non-JSON lines, ${thousands(json.length)} JSON lines (${errorLevel})` };
}

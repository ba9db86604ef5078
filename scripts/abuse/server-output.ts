import type { Readable } from 'node:stream';

/** What the service printed over a window: counted line by line, whatever the volume. */
export interface OutputStats {
  lines: number;
  bytes: number;
  /** Lines that are not JSON: stack traces and other unstructured text. */
  nonJson: number;
  /** JSON lines at pino's level 50 (error) or above. */
  errorLevel: number;
  /** The first error line's message, first line only. */
  firstError?: string;
}

const KEEP = 5_000;

export const isJsonLine = (line: string) => {
  try {
    return typeof JSON.parse(line) === 'object';
  } catch {
    return false;
  }
};

/** Yoga's error lines carry the message in args; the first line of it is enough. */
function errorMessage(line: string): string {
  const l = JSON.parse(line) as { msg?: string; args?: unknown[] };
  const first = l.args?.[0];
  return String(typeof first === 'string' ? first : l.msg)
    .split('\n', 1)[0]!
    .slice(0, 60);
}

/**
 * The service's stdout and stderr since the last reset(): every line counted
 * (an attack can make it log millions), the last few thousand kept for reading.
 */
export class ServerOutput {
  private kept: string[] = [];
  private stats: OutputStats = { lines: 0, bytes: 0, nonJson: 0, errorLevel: 0 };
  private partial = new Map<Readable, string>();
  private lastOutputAt = 0;

  attach(stream: Readable): void {
    stream.setEncoding('utf8');
    stream.on('data', (chunk: string) => {
      this.lastOutputAt = performance.now();
      const text = (this.partial.get(stream) ?? '') + chunk;
      const parts = text.split('\n');
      this.partial.set(stream, parts.pop()!);
      for (const line of parts) if (line.trim() !== '') this.count(line);
      if (this.kept.length > 2 * KEEP) this.kept.splice(0, this.kept.length - KEEP);
    });
  }

  private count(line: string): void {
    const s = this.stats;
    s.lines++;
    s.bytes += Buffer.byteLength(line) + 1;
    this.kept.push(line);
    // pino writes level first: no need to parse a million lines to classify them.
    const level = /^\{"level":(\d+),/.exec(line)?.[1];
    if (level === undefined) {
      if (!isJsonLine(line)) s.nonJson++;
    } else if (Number(level) >= 50) {
      s.errorLevel++;
      s.firstError ??= errorMessage(line);
    }
  }

  reset(): void {
    this.kept = [];
    this.stats = { lines: 0, bytes: 0, nonJson: 0, errorLevel: 0 };
  }

  /**
   * Waits until the service has printed nothing for quietMs (at most maxMs), then
   * returns what it printed since reset(), and how long it kept printing from now.
   */
  async settle(quietMs = 500, maxMs = 300_000): Promise<{ stats: OutputStats; lines: string[]; tailMs: number }> {
    const started = performance.now();
    while (performance.now() - Math.max(this.lastOutputAt, started) < quietMs && performance.now() - started < maxMs) {
      await new Promise((r) => setTimeout(r, 100));
    }
    return {
      stats: { ...this.stats },
      lines: this.kept.slice(-KEEP),
      tailMs: Math.max(0, this.lastOutputAt - started),
    };
  }
}

const thousands = (n: number) => n.toLocaleString('en-US');

/**
 * What the service printed since the observation began, once it has stopped
 * printing; a long tail means it went on working (and logging) after answering.
 */
export async function describeOutput(output: ServerOutput | undefined): Promise<{ lines: string[]; summary: string }> {
  if (!output) return { lines: [], summary: 'output not captured (--url)' };
  const { stats, lines, tailMs } = await output.settle();
  const first = stats.firstError ? `, first: "${stats.firstError}"` : '';
  const size = `${thousands(stats.lines)} lines (${(stats.bytes / 2 ** 20).toFixed(1)} MiB)`;
  const tail = tailMs > 1_000 ? `; went on logging ${(tailMs / 1000).toFixed(1)} s after the answer` : '';
  return {
    lines,
    summary: `logged ${size}: ${thousands(stats.nonJson)} non-JSON, ${thousands(stats.errorLevel)} error level${first}${tail}`,
  };
}

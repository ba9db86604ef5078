import type { Server } from '../lib/service-process.ts';
import type { PgMonitor } from './pg-monitor.ts';
import { cpuTicks, reapedChildrenTicks, treeTicks } from '../lib/proc.ts';
import { runWrk, wrkErrors, type WrkLoad } from './wrk.ts';

/** One query on one server, summed over the rounds. */
export interface CaseTotals {
  requests: number;
  seconds: number;
  p50: number[];
  p99: number[];
  nodeTicks: number;
  pgTicks: number;
  wrkTicks: number;
  statements: number;
  statementRequests: number;
  errors: number;
  bad: number;
  /** CaseContext.extraCpu's meters over the measured windows, by name. */
  extraTicks: Record<string, number>;
}

export const emptyTotals = (): CaseTotals => ({
  requests: 0,
  seconds: 0,
  p50: [],
  p99: [],
  nodeTicks: 0,
  pgTicks: 0,
  wrkTicks: 0,
  statements: 0,
  statementRequests: 0,
  errors: 0,
  bad: 0,
  extraTicks: {},
});

/** Starts counting some processes' CPU ticks; what it returns stops and returns the count. */
export type CpuMeter = () => () => number;

export interface CaseContext {
  /** A PgMonitor, or several behind one (the replica bench's primary and standby). */
  monitor: Pick<PgMonitor, 'backendPids' | 'committed' | 'drain' | 'flush'>;
  /** Both servers: neither may still be working when a case starts or ends. */
  serverPids: number[];
  warmup: number;
  duration: number;
  log: (line: string) => void;
  /** More CPU to count over the measured window, by name (the replica bench: each cluster's processes). */
  extraCpu?: Record<string, CpuMeter>;
}

/**
 * Starts counting CPU ticks: the server's process tree (the service's primary,
 * its workers and tsx's esbuild helpers, idle once loaded), the database's
 * backends (new ones count from zero) and wrk, once it has exited and been reaped.
 */
async function startCpuMeter(ctx: CaseContext, serverPid: number) {
  const { monitor } = ctx;
  const pidsBefore = await monitor.backendPids();
  const pgBefore = new Map(pidsBefore.map((pid) => [pid, cpuTicks(pid) ?? 0]));
  const nodeBefore = treeTicks(serverPid);
  const wrkBefore = reapedChildrenTicks();
  const extra = Object.entries(ctx.extraCpu ?? {}).map(([name, start]) => [name, start()] as const);
  return async () => {
    const wrkTicks = reapedChildrenTicks() - wrkBefore;
    const extraTicks = Object.fromEntries(extra.map(([name, stop]) => [name, stop()]));
    let nodeTicks = 0;
    for (const [pid, now] of treeTicks(serverPid)) nodeTicks += now - (nodeBefore.get(pid) ?? 0);
    let pgTicks = 0;
    for (const pid of new Set([...pidsBefore, ...(await monitor.backendPids())])) {
      const now = cpuTicks(pid);
      if (now !== null) pgTicks += now - (pgBefore.get(pid) ?? 0);
    }
    return { nodeTicks, pgTicks, wrkTicks, extraTicks };
  };
}

/** Warm-up, then the measured run, each case starting and ending with quiet servers and flushed statistics. */
export async function runCase(ctx: CaseContext, load: WrkLoad, server: Server, totals: CaseTotals): Promise<void> {
  const { monitor, serverPids } = ctx;
  await monitor.flush(serverPids);
  const committedBefore = await monitor.committed();
  const warm = await runWrk(load, server.url, ctx.warmup).catch((err: Error) => {
    const state = server.child.exitCode === null ? 'running' : `exited with ${server.child.exitCode}`;
    throw new Error(`${err.message}\n${server.name} ${state}; its stderr:\n${server.stderr.join('')}`);
  });
  // The warm-up's last requests must not run on the measured window's CPU.
  await monitor.drain(serverPids);

  const stopCpuMeter = await startCpuMeter(ctx, server.child.pid!);
  const result = await runWrk(load, server.url, ctx.duration);
  const cpu = await stopCpuMeter();
  await monitor.flush(serverPids);
  const committed = (await monitor.committed()) - committedBefore;

  totals.requests += result.requests;
  totals.seconds += result.duration_us / 1e6;
  totals.p50.push(result.p50_us / 1000);
  totals.p99.push(result.p99_us / 1000);
  totals.nodeTicks += cpu.nodeTicks;
  totals.pgTicks += cpu.pgTicks;
  totals.wrkTicks += cpu.wrkTicks;
  totals.statements += committed;
  totals.statementRequests += warm.sent + result.sent;
  for (const [name, ticks] of Object.entries(cpu.extraTicks))
    totals.extraTicks[name] = (totals.extraTicks[name] ?? 0) + ticks;
  for (const r of [warm, result]) {
    totals.errors += wrkErrors(r);
    totals.bad += r.bad;
  }
  ctx.log(
    `  ${server.name.padEnd(12)} ${(result.requests / (result.duration_us / 1e6)).toFixed(0).padStart(6)} req/s` +
      `  p50 ${(result.p50_us / 1000).toFixed(2)} ms  p99 ${(result.p99_us / 1000).toFixed(2)} ms` +
      `  errors ${wrkErrors(result)}  bad ${result.bad}`,
  );
}

import type { Logger } from './logger.ts';
import { monitorConnection, repeat, type MonitorConnection } from './replica-monitor.ts';
import { requestContext, type ReplicaReads } from './request-context.ts';

/**
 * Which hot standbys a read may use. The rule: a read goes to a standby only if the standby had replayed the
 * primary's WAL up to the horizon (the LSN of every change this instance knows of: its own writes and the
 * changes it was notified of), and does not lag past maxLagMs. The horizon is read from the primary after
 * each such change (one statement per change, coalesced), and standbys are polled on a timer; a request adds
 * no statement. While a change's LSN is being read, reads use the primary.
 */

/** PostgreSQL's pg_lsn text (`16/B374D848`) as a byte position. */
export function parseLsn(text: string): bigint {
  const [high, low] = text.split('/');
  if (high === undefined || low === undefined) throw new Error(`not an LSN: ${text}`);
  return (BigInt(`0x${high}`) << 32n) + BigInt(`0x${low}`);
}

export interface ReplicaStatus {
  /** host:port/database, no credentials: the metrics' label. */
  name: string;
  up: boolean;
  /** How long ago the primary was first past what the standby has replayed; undefined while unknown. */
  lagMs: number | undefined;
  /** Reads sent to it since start. */
  reads: number;
}

export interface ReplicaTarget<Pool> {
  readonly status: ReplicaStatus;
  readonly pool: Pool;
}

/**
 * Marks the request being served as one whose reads may use a standby (a GraphQL query: see
 * use-replica-reads.ts). Kept on the request's context rather than a store of its own: every further
 * AsyncLocalStorage costs every promise of every request.
 */
export function allowReplicaReads(): void {
  const request = requestContext.getStore();
  if (request) request.replicaReads ??= { pinned: undefined };
}

const readScope = (): ReplicaReads | undefined => requestContext.getStore()?.replicaReads;

export function inReadScope(): boolean {
  return readScope() !== undefined;
}

/** host:port/database of a URL, never its user or password. */
export function replicaName(url: string): string {
  const u = new URL(url);
  return `${u.hostname}:${u.port || '5432'}${u.pathname}`;
}

export interface ReplicaRouterOptions<Pool> {
  primaryUrl: string;
  replicas: readonly { url: string; pool: Pool }[];
  maxLagMs: number;
  pollMs: number;
  logger: Logger;
}

interface Sample {
  at: number;
  lsn: bigint;
}

const POSITION_SQL = 'SELECT pg_current_wal_insert_lsn()::text AS lsn';
const STANDBY_SQL = 'SELECT pg_last_wal_replay_lsn()::text AS lsn, pg_postmaster_start_time()::text AS started';

/** The primary's WAL positions: the recent ones (to measure lag by) and the horizon. */
function primaryPositions(primary: MonitorConnection, historyMs: number, logger: Logger) {
  const history: Sample[] = [];
  // Unknown (no standby serves) until the primary's position is first read: an instance starting knows at
  // least what was committed before it.
  let horizon: bigint | undefined;
  // Changes seen, and how many of them the horizon covers: standbys wait while any is not covered.
  let seen = 0;
  let covered = 0;
  let reading = false;

  const read = async () => {
    const { lsn } = await primary.row<{ lsn: string }>(POSITION_SQL);
    const position = parseLsn(lsn);
    const now = performance.now();
    const last = history.at(-1);
    if (!last || position > last.lsn) history.push({ at: now, lsn: position });
    while (history.length > 2 && history[1]!.at < now - historyMs) history.shift();
    return position;
  };
  /** Reads the primary's position after the changes seen so far; the horizon then covers them. */
  const cover = async () => {
    if (reading) return;
    reading = true;
    try {
      while (covered < seen) {
        const upTo = seen;
        const position = await read();
        if (horizon === undefined || position > horizon) horizon = position;
        covered = upTo;
      }
    } catch (err) {
      // Standbys stay unused until the next poll covers it.
      logger.debug({ err: { message: (err as Error).message } }, 'primary position unknown');
    } finally {
      reading = false;
    }
  };
  return {
    /** A poll: a new sample to measure lag by (the horizon moves only for changes). */
    async sample() {
      try {
        const position = await read();
        horizon ??= position;
      } catch (err) {
        logger.debug({ err: { message: (err as Error).message } }, 'primary position unknown');
      }
      if (covered < seen) await cover();
    },
    changed() {
      seen++;
      void cover();
    },
    /** What a standby must have replayed to serve a read beginning now; undefined: none may. */
    horizon: () => (covered < seen ? undefined : horizon),
    /** How long ago the primary was first known to be past `replayed`. */
    lagOf(replayed: bigint): number {
      const ahead = history.find((s) => s.lsn > replayed);
      return ahead ? performance.now() - ahead.at : 0;
    },
  };
}

interface Standby<Pool> extends ReplicaTarget<Pool> {
  replayed: bigint | undefined;
  startedAt: string | undefined;
  monitor: MonitorConnection;
}

function markDown(standby: Standby<unknown>, reason: string, logger: Logger): void {
  standby.replayed = undefined;
  standby.startedAt = undefined;
  standby.status.lagMs = undefined;
  if (standby.status.up) logger.warn({ replica: standby.status.name, reason }, 'read replica out of rotation');
  standby.status.up = false;
}

/** Reads a standby's replay position: in rotation while it answers, replays, and lags at most maxLagMs. */
async function pollStandby(
  standby: Standby<unknown>,
  lagOf: (replayed: bigint) => number,
  maxLagMs: number,
  logger: Logger,
): Promise<void> {
  const { status } = standby;
  try {
    const row = await standby.monitor.row<{ lsn: string | null; started: string }>(STANDBY_SQL);
    if (row.lsn === null) return markDown(standby, 'not a standby (not in recovery)', logger);
    // A restarted standby may resume replay from before what it had shown: only what it shows now counts.
    if (standby.startedAt !== undefined && standby.startedAt !== row.started) markDown(standby, 'restarted', logger);
    standby.startedAt = row.started;
    standby.replayed = parseLsn(row.lsn);
    status.lagMs = lagOf(standby.replayed);
    const usable = status.lagMs <= maxLagMs;
    if (usable && !status.up) logger.info({ replica: status.name }, 'read replica in rotation');
    if (!usable && status.up)
      logger.warn({ replica: status.name, lagMs: Math.round(status.lagMs) }, 'read replica lags');
    status.up = usable;
  } catch (err) {
    markDown(standby, (err as Error).message, logger);
  }
}

export function createReplicaRouter<Pool>(options: ReplicaRouterOptions<Pool>) {
  const { logger, maxLagMs, pollMs } = options;
  const timeoutMs = Math.max(pollMs * 4, 1_000);
  const primaryMonitor = monitorConnection(options.primaryUrl, timeoutMs);
  // Enough of the primary's past positions (one per poll at most) to tell a lag of a minute, or twice the limit.
  const primary = primaryPositions(primaryMonitor, Math.max(maxLagMs * 2, 60_000), logger);
  const standbys: Standby<Pool>[] = options.replicas.map(({ url, pool }) => ({
    pool,
    status: { name: replicaName(url), up: false, lagMs: undefined, reads: 0 },
    replayed: undefined,
    startedAt: undefined,
    monitor: monitorConnection(url, timeoutMs),
  }));

  // Each server on a timer of its own: a standby whose connection hangs holds up no other's poll.
  const stopPolls = [
    () => primary.sample(),
    ...standbys.map((standby) => () => pollStandby(standby, primary.lagOf, maxLagMs, logger)),
  ].map((poll) => repeat(poll, pollMs));

  let next = 0;
  let primaryReads = 0;
  const fresh = (standby: Standby<Pool>, horizon: bigint) =>
    standby.status.up && standby.replayed !== undefined && standby.replayed >= horizon;

  return {
    /** A standby for a read beginning now, or undefined: the primary. The request keeps to the one it began on. */
    pick(): ReplicaTarget<Pool> | undefined {
      const scope = readScope();
      const horizon = primary.horizon();
      if (!scope || horizon === undefined) return undefined;
      const pinned = scope.pinned as Standby<Pool> | undefined;
      if (pinned && fresh(pinned, horizon)) return pinned;
      for (let i = 0; i < standbys.length; i++) {
        const standby = standbys[(next + i) % standbys.length]!;
        if (!fresh(standby, horizon)) continue;
        next = (next + i + 1) % standbys.length;
        scope.pinned = standby;
        return standby;
      }
      return undefined;
    },
    /** A statement ran on it. */
    used(target: ReplicaTarget<Pool>) {
      target.status.reads++;
    },
    /** A read went to the primary (no standby could take it). */
    usedPrimary() {
      primaryReads++;
    },
    /** It failed to connect or to answer: out of rotation until the next poll finds it well. */
    failed(target: ReplicaTarget<Pool>, err: unknown) {
      markDown(target as Standby<Pool>, (err as Error)?.message ?? String(err), logger);
      const scope = readScope();
      if (scope?.pinned === target) scope.pinned = undefined;
    },
    /**
     * A change committed (this instance's write, or a notification of another's): no standby serves a read
     * until one has replayed it.
     */
    changed: primary.changed,
    /** The standbys, and how many reads went to the primary, for the metrics. */
    status(): { replicas: ReplicaStatus[]; primaryReads: number } {
      return { replicas: standbys.map((r) => r.status), primaryReads };
    },
    targets(): readonly ReplicaTarget<Pool>[] {
      return standbys;
    },
    close() {
      for (const stop of stopPolls) stop();
      primaryMonitor.close();
      for (const standby of standbys) standby.monitor.close();
    },
  };
}

export type ReplicaRouter<Pool = unknown> = ReturnType<typeof createReplicaRouter<Pool>>;

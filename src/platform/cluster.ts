import cluster, { type Worker } from 'node:cluster';
import { joinInstanceMetrics, serveInstanceMetrics, type InstanceMetrics } from './cluster-metrics.ts';
import type { Logger } from './logger.ts';

// WEB_CONCURRENCY > 1. The primary serves no request: it migrates once, tells the workers when to serve,
// restarts those that die, forwards SIGTERM/SIGINT and merges their metrics (cluster-metrics.ts).

type ToWorker = { type: 'pcs:serve' };

/** Restart delays double with each crash in the last minute: a crash loop must not spin. */
const CRASH_WINDOW_MS = 60_000;
const FIRST_RESTART_DELAY_MS = 250;
const MAX_RESTART_DELAY_MS = 30_000;

export interface PrimaryOptions {
  workers: number;
  logger: Logger;
  shutdownTimeoutMs: number;
  /** Applies pending migrations, retrying while the database is away; false when shutdown came first. */
  migrate(isStopping: () => boolean): Promise<boolean>;
  /** Called once, when migrations are applied and every first worker listens. */
  onReady(): void;
}

/** What the primary knows of its workers and of its own state; the functions below share it. */
interface Primary {
  options: PrimaryOptions;
  logger: Logger;
  alive: Set<Worker>;
  listening: Set<Worker>;
  restartTimers: Set<NodeJS.Timeout>;
  /** When workers crashed in the last CRASH_WINDOW_MS. */
  crashes: number[];
  anyListened: boolean;
  migrated: boolean;
  announced: boolean;
  stopping: NodeJS.Signals | undefined;
  exitCode: number;
}

const send = (worker: Worker, message: ToWorker) => {
  if (worker.isConnected()) worker.send(message);
};

function announceWhenReady(p: Primary): void {
  if (p.announced || !p.migrated || p.listening.size < p.options.workers) return;
  p.announced = true;
  p.options.onReady();
}

function fork(p: Primary): void {
  const worker = cluster.fork();
  p.alive.add(worker);
  p.logger.info({ worker: worker.id, workerPid: worker.process.pid }, 'worker started');
  worker.once('listening', () => {
    p.anyListened = true;
    p.listening.add(worker);
    if (p.migrated) send(worker, { type: 'pcs:serve' });
    announceWhenReady(p);
  });
}

function shutdown(p: Primary, signal: NodeJS.Signals): void {
  p.stopping = signal;
  for (const timer of p.restartTimers) clearTimeout(timer);
  // Each worker gives up on its own drain 5 s after SHUTDOWN_TIMEOUT_MS; this is the backstop.
  setTimeout(() => {
    p.logger.error({ workers: [...p.alive].map((w) => w.process.pid) }, 'workers did not stop in time');
    for (const worker of p.alive) worker.process.kill('SIGKILL');
    process.exit(1);
  }, p.options.shutdownTimeoutMs + 10_000).unref();
  for (const worker of p.alive) worker.process.kill(signal);
  if (p.alive.size === 0) process.exit(p.exitCode);
}

/** A worker that died while stopping: the primary exits once the last one has. */
function stoppedWorker(p: Primary, fields: object, code: number | null, signal: string | null): void {
  p.logger.info(fields, 'worker exited');
  // A worker that had no signal handler yet dies of the forwarded signal: that is a clean stop too.
  if (signal === null ? code !== 0 : signal !== p.stopping) p.exitCode = 1;
  if (p.alive.size === 0) {
    p.logger.info({ code: p.exitCode }, 'stopped');
    process.exit(p.exitCode);
  }
}

/** A worker that crashed: another one after a delay that doubles with each crash of the last minute. */
function restartAfterCrash(p: Primary, worker: Worker): void {
  const now = Date.now();
  p.crashes = [...p.crashes.filter((t) => now - t < CRASH_WINDOW_MS), now];
  const delayMs = Math.min(MAX_RESTART_DELAY_MS, FIRST_RESTART_DELAY_MS * 2 ** (p.crashes.length - 1));
  p.logger.warn({ worker: worker.id, inMs: delayMs, crashesLastMinute: p.crashes.length }, 'restarting worker');
  const timer = setTimeout(() => {
    p.restartTimers.delete(timer);
    if (!p.stopping) fork(p);
  }, delayMs);
  p.restartTimers.add(timer);
}

function workerExited(p: Primary, worker: Worker, code: number | null, signal: string | null): void {
  p.alive.delete(worker);
  const wasListening = p.listening.delete(worker);
  const fields = { worker: worker.id, workerPid: worker.process.pid, code, signal };
  if (p.stopping) return stoppedWorker(p, fields, code, signal);
  p.logger.error(fields, 'worker exited unexpectedly');
  if (!wasListening && !p.anyListened) {
    // No worker got as far as listening: the next one would fail the same way (port taken, bad build).
    p.logger.error('no worker could start; stopping');
    p.exitCode = 1;
    shutdown(p, 'SIGTERM');
    return;
  }
  restartAfterCrash(p, worker);
}

/** Workers listen at once and answer probes (/ready 503); they serve once the primary has migrated. */
function migrateThenServe(p: Primary): void {
  p.options
    .migrate(() => p.stopping !== undefined)
    .then(
      (done) => {
        if (!done || p.stopping) return;
        p.migrated = true;
        for (const worker of p.listening) send(worker, { type: 'pcs:serve' });
        announceWhenReady(p);
      },
      (err: unknown) => {
        // A broken migration will not fix itself: stop, and let the deployment fail loudly.
        p.logger.error({ err: { message: err instanceof Error ? err.message : String(err) } }, 'migrations failed');
        p.exitCode = 1;
        if (!p.stopping) shutdown(p, 'SIGTERM');
      },
    );
}

/** Exits 0 once every worker has stopped after SIGTERM/SIGINT, 1 when the start failed or a worker did not stop cleanly. */
export function runPrimary(options: PrimaryOptions): void {
  const { logger } = options;
  serveInstanceMetrics();
  const p: Primary = {
    options,
    logger,
    alive: new Set(),
    listening: new Set(),
    restartTimers: new Set(),
    crashes: [],
    anyListened: false,
    migrated: false,
    announced: false,
    stopping: undefined,
    exitCode: 0,
  };
  cluster.on('exit', (worker, code, signal) => workerExited(p, worker, code, signal));
  const onSignal = (signal: NodeJS.Signals) => {
    if (p.stopping) {
      logger.info({ signal }, 'already shutting down');
      return;
    }
    logger.info({ signal, timeoutMs: options.shutdownTimeoutMs, workers: p.alive.size }, 'shutting down');
    shutdown(p, signal);
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);

  logger.info({ workers: options.workers }, 'starting workers');
  for (let i = 0; i < options.workers; i++) fork(p);
  migrateThenServe(p);
}

export interface ClusterWorker {
  serving: Promise<void>;
  metrics: InstanceMetrics;
}

/** In a worker, before it listens: the primary's word to serve may follow the listen at once. */
export function joinCluster(logger: Logger): ClusterWorker {
  let serve!: () => void;
  const serving = new Promise<void>((resolve) => (serve = resolve));
  process.on('message', (message: ToWorker) => {
    if (message?.type === 'pcs:serve') serve();
  });
  return { serving, metrics: joinInstanceMetrics(logger) };
}

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

/** Exits 0 once every worker has stopped after SIGTERM/SIGINT, 1 when the start failed or a worker did not stop cleanly. */
export function runPrimary(options: PrimaryOptions): void {
  const { logger } = options;
  serveInstanceMetrics();
  const alive = new Set<Worker>();
  const listening = new Set<Worker>();
  const restartTimers = new Set<NodeJS.Timeout>();
  let crashes: number[] = [];
  let anyListened = false;
  let migrated = false;
  let announced = false;
  let stopping: NodeJS.Signals | undefined;
  let exitCode = 0;

  const send = (worker: Worker, message: ToWorker) => {
    if (worker.isConnected()) worker.send(message);
  };

  const announceWhenReady = () => {
    if (announced || !migrated || listening.size < options.workers) return;
    announced = true;
    options.onReady();
  };

  const fork = () => {
    const worker = cluster.fork();
    alive.add(worker);
    logger.info({ worker: worker.id, workerPid: worker.process.pid }, 'worker started');
    worker.once('listening', () => {
      anyListened = true;
      listening.add(worker);
      if (migrated) send(worker, { type: 'pcs:serve' });
      announceWhenReady();
    });
  };

  const shutdown = (signal: NodeJS.Signals) => {
    stopping = signal;
    for (const timer of restartTimers) clearTimeout(timer);
    // Each worker gives up on its own drain 5 s after SHUTDOWN_TIMEOUT_MS; this is the backstop.
    setTimeout(() => {
      logger.error({ workers: [...alive].map((w) => w.process.pid) }, 'workers did not stop in time');
      for (const worker of alive) worker.process.kill('SIGKILL');
      process.exit(1);
    }, options.shutdownTimeoutMs + 10_000).unref();
    for (const worker of alive) worker.process.kill(signal);
    if (alive.size === 0) process.exit(exitCode);
  };

  cluster.on('exit', (worker, code, signal) => {
    alive.delete(worker);
    const wasListening = listening.delete(worker);
    const fields = { worker: worker.id, workerPid: worker.process.pid, code, signal };
    if (stopping) {
      logger.info(fields, 'worker exited');
      // A worker that had no signal handler yet dies of the forwarded signal: that is a clean stop too.
      if (signal === null ? code !== 0 : signal !== stopping) exitCode = 1;
      if (alive.size === 0) {
        logger.info({ code: exitCode }, 'stopped');
        process.exit(exitCode);
      }
      return;
    }
    logger.error(fields, 'worker exited unexpectedly');
    if (!wasListening && !anyListened) {
      // No worker got as far as listening: the next one would fail the same way (port taken, bad build).
      logger.error('no worker could start; stopping');
      exitCode = 1;
      shutdown('SIGTERM');
      return;
    }
    const now = Date.now();
    crashes = [...crashes.filter((t) => now - t < CRASH_WINDOW_MS), now];
    const delayMs = Math.min(MAX_RESTART_DELAY_MS, FIRST_RESTART_DELAY_MS * 2 ** (crashes.length - 1));
    logger.warn({ worker: worker.id, inMs: delayMs, crashesLastMinute: crashes.length }, 'restarting worker');
    const timer = setTimeout(() => {
      restartTimers.delete(timer);
      if (!stopping) fork();
    }, delayMs);
    restartTimers.add(timer);
  });

  const onSignal = (signal: NodeJS.Signals) => {
    if (stopping) {
      logger.info({ signal }, 'already shutting down');
      return;
    }
    logger.info({ signal, timeoutMs: options.shutdownTimeoutMs, workers: alive.size }, 'shutting down');
    shutdown(signal);
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);

  logger.info({ workers: options.workers }, 'starting workers');
  for (let i = 0; i < options.workers; i++) fork();

  // Workers listen at once and answer probes (/ready 503); they serve once the primary has migrated.
  options
    .migrate(() => stopping !== undefined)
    .then(
      (done) => {
        if (!done || stopping) return;
        migrated = true;
        for (const worker of listening) send(worker, { type: 'pcs:serve' });
        announceWhenReady();
      },
      (err: unknown) => {
        // A broken migration will not fix itself: stop, and let the deployment fail loudly.
        logger.error({ err: { message: err instanceof Error ? err.message : String(err) } }, 'migrations failed');
        exitCode = 1;
        if (!stopping) shutdown('SIGTERM');
      },
    );
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

import cluster, { type Worker } from 'node:cluster';
import { AggregatorRegistry, type Registry } from 'prom-client';
import { serviceUnavailableHttpError } from './errors.ts';
import type { Logger } from './logger.ts';

// Any worker's /metrics describes the whole instance: the primary merges every worker's registry. Not
// AggregatorRegistry#clusterMetrics(): it also asks a worker forked a moment ago, which drops the request and
// fails the scrape; here a worker is asked once it said it can answer, and one that exits is left out.

type ToPrimary =
  | { type: 'pcs:metrics-ready' }
  | { type: 'pcs:scrape'; id: number }
  | { type: 'pcs:registry'; id: number; metrics: unknown[] };
type ToWorker =
  { type: 'pcs:collect'; id: number } | { type: 'pcs:instance-metrics'; id: number; text?: string; error?: string };

/** A worker whose event loop is stuck this long fails the scrape: partial sums would look like counter resets. */
const COLLECT_TIMEOUT_MS = 5_000;
/** The worker's own limit, should the primary's answer never come. */
const SCRAPE_TIMEOUT_MS = COLLECT_TIMEOUT_MS + 1_000;

const send = (worker: Worker, message: ToWorker) => {
  if (worker.isConnected()) worker.send(message);
};

/** In the primary: answers the workers' scrapes with the merged metrics of every worker. */
export function serveInstanceMetrics(): void {
  const reporting = new Set<Worker>();
  const collections = new Map<number, { waiting: Set<Worker>; parts: unknown[][]; finish(): void }>();
  let nextId = 0;

  const collect = () =>
    new Promise<string>((resolve, reject) => {
      const id = nextId++;
      const waiting = new Set([...reporting].filter((w) => w.isConnected()));
      const parts: unknown[][] = [];
      const timer = setTimeout(() => {
        collections.delete(id);
        reject(new Error(`${waiting.size} worker(s) did not report within ${COLLECT_TIMEOUT_MS} ms`));
      }, COLLECT_TIMEOUT_MS);
      const finish = () => {
        clearTimeout(timer);
        collections.delete(id);
        AggregatorRegistry.aggregate(parts).metrics().then(resolve, reject);
      };
      collections.set(id, { waiting, parts, finish });
      if (waiting.size === 0) return finish();
      for (const worker of waiting) send(worker, { type: 'pcs:collect', id });
    });

  const settled = (worker: Worker, id: number, metrics?: unknown[]) => {
    const collection = collections.get(id);
    if (!collection?.waiting.delete(worker)) return;
    if (metrics) collection.parts.push(metrics);
    if (collection.waiting.size === 0) collection.finish();
  };

  cluster.on('message', (worker, message: ToPrimary) => {
    switch (message?.type) {
      case 'pcs:metrics-ready':
        reporting.add(worker);
        break;
      case 'pcs:registry':
        settled(worker, message.id, message.metrics);
        break;
      case 'pcs:scrape':
        collect().then(
          (text) => send(worker, { type: 'pcs:instance-metrics', id: message.id, text }),
          (err: Error) => send(worker, { type: 'pcs:instance-metrics', id: message.id, error: err.message }),
        );
        break;
    }
  });
  cluster.on('exit', (worker) => {
    reporting.delete(worker);
    for (const id of [...collections.keys()]) settled(worker, id);
  });
}

export interface InstanceMetrics {
  /** Lets the primary collect this registry from now on. */
  share(registry: Registry): void;
  text(): Promise<string>;
}

/** In a worker: answers the primary's collections, and asks it for the instance's metrics. */
export function joinInstanceMetrics(logger: Logger): InstanceMetrics {
  const pending = new Map<number, { resolve(text: string): void; reject(reason: string): void }>();
  let nextId = 0;
  let registry: Registry | undefined;

  const report = (message: ToPrimary) => {
    if (process.connected) process.send!(message);
  };
  process.on('message', (message: ToWorker) => {
    if (message?.type === 'pcs:collect' && registry) {
      const { id } = message;
      registry.getMetricsAsJSON().then(
        (metrics) => report({ type: 'pcs:registry', id, metrics }),
        // Still settle the collection, without this worker's part.
        () => report({ type: 'pcs:registry', id, metrics: [] }),
      );
    } else if (message?.type === 'pcs:instance-metrics') {
      const request = pending.get(message.id);
      pending.delete(message.id);
      if (message.error !== undefined) request?.reject(message.error);
      else request?.resolve(message.text ?? '');
    }
  });

  const unavailable = (reason: string) => {
    logger.warn({ reason }, 'instance metrics unavailable');
    return serviceUnavailableHttpError('Metrics are unavailable right now.');
  };

  return {
    share(shared) {
      registry = shared;
      report({ type: 'pcs:metrics-ready' });
    },
    text() {
      return new Promise((resolve, reject) => {
        if (!process.connected) return reject(unavailable('no channel to the primary'));
        const id = nextId++;
        const timer = setTimeout(() => {
          pending.delete(id);
          reject(unavailable('the primary did not answer in time'));
        }, SCRAPE_TIMEOUT_MS);
        pending.set(id, {
          resolve(text) {
            clearTimeout(timer);
            resolve(text);
          },
          reject(reason) {
            clearTimeout(timer);
            reject(unavailable(reason));
          },
        });
        report({ type: 'pcs:scrape', id });
      });
    },
  };
}

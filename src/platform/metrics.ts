import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { QueryObserver } from './db.ts';

// Each app has its own Registry, not prom-client's global one, so two apps in one process (tests) keep apart.

const SECONDS_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** GraphQL operation names are chosen by clients: bound the label set so nobody can blow it up. */
const MAX_OPERATION_NAMES = 200;
const OPERATION_NAME = /^[_A-Za-z][_0-9A-Za-z]{0,63}$/;

export interface RequestObservation {
  method: string;
  route: string;
  status: number;
  operation: string | null | undefined;
  /** Whether the operation was parsed and validated: only then may its client-chosen name become a label. */
  operationRan?: boolean | undefined;
  durationMs: number;
}

export interface Metrics {
  registry: Registry;
  observeRequest(o: RequestObservation): void;
  observeQuery: QueryObserver;
  watchPool(stats: () => { total: number; idle: number; waiting: number }): void;
}

function statementKind(sql: string): string {
  const word = /^\s*(?:with\b[\s\S]*?\)\s*)?([a-z]+)/i.exec(sql)?.[1]?.toLowerCase();
  return word && ['select', 'insert', 'update', 'delete', 'begin', 'commit', 'rollback'].includes(word)
    ? word
    : 'other';
}

export function createMetrics(): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });

  const requests = new Counter({
    name: 'http_requests_total',
    help: 'HTTP requests answered, by method, route, GraphQL operation and status.',
    labelNames: ['method', 'route', 'operation', 'status'] as const,
    registers: [registry],
  });
  const latency = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'Time from request to the end of the response, by method, route and GraphQL operation.',
    labelNames: ['method', 'route', 'operation'] as const,
    buckets: SECONDS_BUCKETS,
    registers: [registry],
  });
  const statements = new Histogram({
    name: 'db_statement_duration_seconds',
    help: 'SQL statement durations, by statement kind and outcome.',
    labelNames: ['statement', 'outcome'] as const,
    buckets: SECONDS_BUCKETS,
    registers: [registry],
  });
  let poolStats: (() => { total: number; idle: number; waiting: number }) | undefined;
  const poolGauge = (
    name: string,
    help: string,
    pick: (s: { total: number; idle: number; waiting: number }) => number,
  ) =>
    new Gauge({
      name,
      help,
      registers: [registry],
      collect() {
        if (poolStats) this.set(pick(poolStats()));
      },
    });
  poolGauge('db_pool_connections_in_use', 'Pool connections checked out by a request.', (s) => s.total - s.idle);
  poolGauge('db_pool_connections_idle', 'Open pool connections waiting for work.', (s) => s.idle);
  poolGauge('db_pool_requests_waiting', 'Requests queued for a free pool connection.', (s) => s.waiting);

  const operations = new Set<string>();
  const operationLabel = (name: string | null | undefined, ran: boolean): string => {
    if (!name) return '';
    // Invalid documents and refused requests would otherwise let anyone fill every slot with made-up names.
    if (!ran) return '(not run)';
    if (!OPERATION_NAME.test(name)) return '(invalid)';
    if (operations.has(name)) return name;
    if (operations.size >= MAX_OPERATION_NAMES) return '(other)';
    operations.add(name);
    return name;
  };

  return {
    registry,
    observeRequest(o) {
      const operation = operationLabel(o.operation, o.operationRan === true);
      requests.inc({ method: o.method, route: o.route, operation, status: String(o.status) });
      latency.observe({ method: o.method, route: o.route, operation }, o.durationMs / 1000);
    },
    observeQuery(event) {
      statements.observe(
        { statement: statementKind(event.sql), outcome: event.failed ? 'error' : 'ok' },
        event.durationMs / 1000,
      );
    },
    watchPool(stats) {
      poolStats = stats;
    },
  };
}

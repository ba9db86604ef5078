import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { createBusiestLabels, OTHER_LABEL } from './busiest-labels.ts';
import type { QueryObserver } from './db.ts';
import type { ReplicaStatus } from './replicas.ts';

// Each app has its own Registry, not prom-client's global one, so two apps in one process (tests) keep apart.

const SECONDS_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** GraphQL operation names are chosen by clients: bound the label set so nobody can blow it up. */
const MAX_OPERATION_NAMES = 200;
const OPERATION_NAME = /^[_A-Za-z][_0-9A-Za-z]{0,63}$/;
/** Customer companies with a label of their own (the busiest of the last minute); the rest are `(other)`. */
const MAX_TENANT_LABELS = 50;
const TENANT_WINDOW_MS = 60_000;

export interface RequestObservation {
  method: string;
  route: string;
  status: number;
  operation: string | null | undefined;
  /** Whether the operation was parsed and validated: only then may its client-chosen name become a label. */
  operationRan?: boolean | undefined;
  /** The slug of the request's customer company; none for the probes, /metrics and unknown hosts. */
  tenant?: string | undefined;
  durationMs: number;
}

export interface Metrics {
  registry: Registry;
  observeRequest(o: RequestObservation): void;
  observeQuery: QueryObserver;
  watchPool(stats: () => { total: number; idle: number; waiting: number }): void;
  watchReplicas(status: ReplicaStatusOf): void;
}

function statementKind(sql: string): string {
  const word = /^\s*(?:with\b[\s\S]*?\)\s*)?([a-z]+)/i.exec(sql)?.[1]?.toLowerCase();
  return word && ['select', 'insert', 'update', 'delete', 'begin', 'commit', 'rollback'].includes(word)
    ? word
    : 'other';
}

type RequestLabels = { method: string; route: string; operation: string; status: string };

/**
 * The `tenant` label of a request: its slug among the busiest, else `(other)`. A tenant that leaves the
 * busiest takes its series with it, so each one's label sets are remembered. Probes, /metrics and unknown
 * hosts have no tenant: their series carry no tenant label at all.
 */
function labelTenants(
  requests: Counter<'method' | 'route' | 'operation' | 'status' | 'tenant'>,
  latency: Histogram<'method' | 'route' | 'operation' | 'tenant'>,
): (tenant: string | undefined, labels: RequestLabels) => { tenant?: string } {
  const seriesOf = new Map<string, Map<string, RequestLabels>>();
  const busiest = createBusiestLabels({
    max: MAX_TENANT_LABELS,
    windowMs: TENANT_WINDOW_MS,
    evicted(tenant) {
      for (const labels of seriesOf.get(tenant)?.values() ?? []) {
        requests.remove({ ...labels, tenant });
        latency.remove({ method: labels.method, route: labels.route, operation: labels.operation, tenant });
      }
      seriesOf.delete(tenant);
    },
  });
  return (slug, labels) => {
    if (!slug) return {};
    const tenant = busiest.label(slug);
    if (tenant === OTHER_LABEL) return { tenant };
    let series = seriesOf.get(tenant);
    if (!series) seriesOf.set(tenant, (series = new Map<string, RequestLabels>()));
    const key = `${labels.method} ${labels.route} ${labels.operation} ${labels.status}`;
    if (!series.has(key)) series.set(key, labels);
    return { tenant };
  };
}

type ReplicaStatusOf = () => { replicas: readonly ReplicaStatus[]; primaryReads: number };

/** The read replicas' lag, rotation and reads, as they are when scraped. */
function replicaMetrics(registry: Registry): (status: ReplicaStatusOf) => void {
  let replicaStatus: ReplicaStatusOf | undefined;
  new Gauge({
    name: 'db_replica_lag_seconds',
    help: 'How far each read replica trails the primary (time since the primary was first past its replay position).',
    labelNames: ['replica'] as const,
    registers: [registry],
    collect() {
      this.reset();
      for (const r of replicaStatus?.().replicas ?? [])
        if (r.lagMs !== undefined) this.set({ replica: r.name }, r.lagMs / 1000);
    },
  });
  new Gauge({
    name: 'db_replica_up',
    help: 'Whether each read replica is in rotation (reachable, a standby, within DATABASE_REPLICA_MAX_LAG_MS).',
    labelNames: ['replica'] as const,
    registers: [registry],
    collect() {
      this.reset();
      for (const r of replicaStatus?.().replicas ?? []) this.set({ replica: r.name }, r.up ? 1 : 0);
    },
  });
  new Counter({
    name: 'db_reads_total',
    help: 'Statements of GraphQL queries, by the server that ran them: a read replica, or the primary.',
    labelNames: ['target'] as const,
    registers: [registry],
    collect() {
      const status = replicaStatus?.();
      if (!status) return;
      this.reset();
      this.inc({ target: 'primary' }, status.primaryReads);
      for (const r of status.replicas) this.inc({ target: r.name }, r.reads);
    },
  });
  return (status) => {
    replicaStatus = status;
  };
}

export function createMetrics(): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });

  const requests = new Counter({
    name: 'http_requests_total',
    help: 'HTTP requests answered, by method, route, GraphQL operation, status and customer company.',
    labelNames: ['method', 'route', 'operation', 'status', 'tenant'] as const,
    registers: [registry],
  });
  const latency = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'Time from request to the end of the response, by method, route, GraphQL operation and customer company.',
    labelNames: ['method', 'route', 'operation', 'tenant'] as const,
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

  const watchReplicas = replicaMetrics(registry);

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

  const tenantLabel = labelTenants(requests, latency);

  return {
    registry,
    observeRequest(o) {
      const operation = operationLabel(o.operation, o.operationRan === true);
      const labels = { method: o.method, route: o.route, operation, status: String(o.status) };
      const tenant = tenantLabel(o.tenant, labels);
      requests.inc({ ...labels, ...tenant });
      latency.observe({ method: o.method, route: o.route, operation, ...tenant }, o.durationMs / 1000);
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
    watchReplicas,
  };
}

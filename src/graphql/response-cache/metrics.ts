import { Counter, Gauge, type Registry } from 'prom-client';

/** The response cache's metrics; the gauges read the store when scraped. */
export function createCacheMetrics(registry: Registry, store: () => { size: number; bytes: number }) {
  const counter = (name: string, help: string) => new Counter({ name, help, registers: [registry] });
  const gauge = (name: string, help: string, read: () => number) =>
    new Gauge({
      name,
      help,
      registers: [registry],
      collect() {
        this.set(read());
      },
    });
  gauge('graphql_response_cache_entries', 'Answers held by the response cache.', () => store().size);
  gauge('graphql_response_cache_bytes', 'Bytes of JSON held by the response cache.', () => store().bytes);
  return {
    hits: counter('graphql_response_cache_hits_total', 'GraphQL queries answered from the response cache.'),
    misses: counter(
      'graphql_response_cache_misses_total',
      'GraphQL queries executed while the response cache was available.',
    ),
    evictions: counter(
      'graphql_response_cache_evictions_total',
      'Answers dropped to stay within the entry and byte bounds.',
    ),
    refused: counter(
      'graphql_response_cache_admissions_refused_total',
      'Answers not kept: larger than one answer may be, asked for once while the cache was full, or over their token’s share.',
    ),
    invalidations: counter(
      'graphql_response_cache_invalidations_total',
      'Times the whole response cache, or one tenant’s part of it, was emptied (a truncate or a large write, or the change notifications lost or back).',
    ),
    targeted: counter(
      'graphql_response_cache_targeted_invalidations_total',
      'Changes that dropped only the answers that read what changed.',
    ),
    dropped: counter(
      'graphql_response_cache_dropped_total',
      'Answers dropped by targeted invalidations (the whole cache emptied is not counted here).',
    ),
    coalesced: counter(
      'graphql_response_cache_coalesced_total',
      'Queries answered by an identical query executing at the same time (single flight).',
    ),
  };
}

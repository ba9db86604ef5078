import { parseArgs } from 'node:util';
import { QUERY_NAMES, type QueryName } from './queries.ts';

/** The bench's command line: what each case runs and how long. Unknown flags or queries throw. */
export function parseSettings(args = process.argv.slice(2)) {
  const { values: opts } = parseArgs({
    args,
    options: {
      quick: { type: 'boolean', default: false },
      products: { type: 'string' },
      duration: { type: 'string' },
      warmup: { type: 'string' },
      rounds: { type: 'string' },
      connections: { type: 'string', default: '32' },
      threads: { type: 'string', default: '1' },
      // Default: every query; with --replica, Q1,Q3,Q1z.
      queries: { type: 'string' },
      pool: { type: 'string' },
      // The service's own default, WEB_CONCURRENCY=1 (BENCHMARKS.md compares two workers).
      workers: { type: 'string', default: '1' },
      'ref-pool': { type: 'string' },
      // hot: the service with its response and token caches; cold: with both off; miss: the response
      // cache off, the token cache on (what every response cache miss pays). A comma list; both: hot,cold.
      // Default both; with --replica, miss,hot.
      mode: { type: 'string' },
      // postgraphile: PostGraphile 5 over the same database, a peer for Q0..Q3; none: no peer.
      peer: { type: 'string', default: 'postgraphile' },
      // off: the hot service looks every token up (what the token cache saves).
      'token-cache': { type: 'string', default: 'on' },
      // The hot service's RESPONSE_CACHE_MAX_BYTES; unset: the service's default.
      'cache-bytes': { type: 'string' },
      // N: the tenant bench instead (tenants.ts): the catalogue as one company, as one tenant by host, and
      // split over N tenants by host.
      tenants: { type: 'string' },
      // The replica bench instead (replica.ts): the miss and hot paths on a throwaway primary, without and
      // with its hot standby.
      replica: { type: 'boolean', default: false },
      // The service's requests by documentId, their documents registered first (trusted.ts); the reference
      // and the peer keep full documents.
      trusted: { type: 'boolean', default: false },
      profile: { type: 'boolean', default: false },
      json: { type: 'string' },
    },
  });

  const quick = opts.quick;
  const replica = opts.replica;
  const mode = opts.mode ?? (replica ? 'miss,hot' : 'both');
  const queries = opts.queries ?? (replica ? 'Q1,Q3,Q1z' : QUERY_NAMES.join(','));
  // Written as is to the --json file: its keys are part of that output.
  const settings = {
    url: process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/pcs_bench',
    products: Number(opts.products ?? 10_000),
    duration: Number(opts.duration ?? (quick ? 2 : 10)),
    warmup: Number(opts.warmup ?? (quick ? 1 : 3)),
    rounds: Number(opts.rounds ?? (quick ? 1 : 2)),
    connections: Number(opts.connections),
    threads: Number(opts.threads),
    // Distinct requests per case; every one is checked against the reference first.
    distinct: quick ? 200 : 500,
    queries: queries.split(',').map((q) => q.trim()) as QueryName[],
    servicePool: opts.pool,
    // The service's WEB_CONCURRENCY; the reference stays one process.
    workers: Number(opts.workers),
    referencePool: opts['ref-pool'] ?? opts.pool ?? '10',
    mode,
    // The service's modes, each a server of its own, in the order given.
    modes: [
      ...new Set(
        mode
          .split(',')
          .map((m) => m.trim())
          .flatMap((m) => (m === 'both' ? ['hot', 'cold'] : [m])),
      ),
    ] as ServiceMode[],
    peer: opts.peer === 'postgraphile',
    hotTokenCache: opts['token-cache'] === 'on',
    hotCacheBytes: opts['cache-bytes'],
    tenants: opts.tenants === undefined ? null : Number(opts.tenants),
    replica,
    trusted: opts.trusted,
  };
  if (
    settings.tenants !== null &&
    !(Number.isInteger(settings.tenants) && settings.tenants >= 1 && settings.tenants <= 9999)
  )
    throw new Error('--tenants must be 1..9999');
  if (settings.tenants !== null && replica) throw new Error('--tenants and --replica are separate benches');
  if (settings.trusted && (settings.tenants !== null || replica))
    throw new Error('--trusted is for the service against the reference, not --tenants or --replica');
  if (!['on', 'off'].includes(opts['token-cache'])) throw new Error('--token-cache must be on or off');
  for (const m of settings.modes)
    if (!(SERVICE_MODES as readonly string[]).includes(m))
      throw new Error('--mode must be a comma list of hot, cold, miss or both');
  if (!['postgraphile', 'none'].includes(opts.peer)) throw new Error('--peer must be postgraphile or none');
  for (const q of settings.queries) if (!QUERY_NAMES.includes(q)) throw new Error(`unknown query ${q}`);
  if (!Number.isInteger(settings.workers) || settings.workers < 1 || settings.workers > 64)
    throw new Error('--workers must be 1..64');
  return { settings, quick, profile: opts.profile, json: opts.json };
}

export const SERVICE_MODES = ['hot', 'cold', 'miss'] as const;
export type ServiceMode = (typeof SERVICE_MODES)[number];
export type Settings = ReturnType<typeof parseSettings>['settings'];

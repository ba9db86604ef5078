import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServer, type Server } from '../lib/service-process.ts';
import { ensureBuilt, serviceNodeArgs } from '../lib/start-command.ts';
import type { ServiceMode, Settings } from './settings.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const HERE = fileURLToPath(new URL('.', import.meta.url));

/**
 * The service as `npm start` runs it; node:cluster passes --cpu-prof on to the workers: one profile per process.
 * extraEnv: more settings, over the bench's (the replica bench's DATABASE_REPLICA_URLS).
 */
export function startService(
  settings: Settings,
  profile: boolean,
  cache: ServiceMode,
  extraEnv: Record<string, string> = {},
): Promise<Server> {
  const env: Record<string, string> = {
    // miss: what every response cache miss pays, the token cache on.
    ...(cache !== 'hot' ? { RESPONSE_CACHE_MAX_ENTRIES: '0' } : {}),
    ...(cache === 'cold' || (cache === 'hot' && !settings.hotTokenCache) ? { TOKEN_CACHE_MAX_ENTRIES: '0' } : {}),
    ...(cache === 'hot' && settings.hotCacheBytes ? { RESPONSE_CACHE_MAX_BYTES: settings.hotCacheBytes } : {}),
    DATABASE_URL: settings.url,
    LOG_LEVEL: 'warn',
    NODE_ENV: 'production',
    WEB_CONCURRENCY: String(settings.workers),
    // Every wrk connection carries the bench's one token: the per-token limit
    // would refuse all but 16 of them, so it is raised to the connection count.
    GRAPHQL_MAX_IN_FLIGHT_PER_TOKEN: String(Math.max(16, settings.connections)),
  };
  if (settings.servicePool) env.DATABASE_POOL_SIZE = settings.servicePool;
  Object.assign(env, extraEnv);
  const profiling = profile ? ['--cpu-prof', `--cpu-prof-dir=${path.join(ROOT, 'bench-profiles')}`] : [];
  ensureBuilt();
  return startServer(cache, [...profiling, ...serviceNodeArgs()], env, 'GraphiQL: ');
}

export function startReference(settings: Settings): Promise<Server> {
  return startServer('reference', ['--import', 'tsx', path.join(HERE, 'reference-server.ts')], {
    DATABASE_URL: settings.url,
    POOL_SIZE: settings.referencePool,
  });
}

const PEER_DIR = path.join(HERE, 'postgraphile');

/**
 * PostGraphile 5 over the same database (scripts/bench/postgraphile): installed there from its own
 * package-lock.json on first use, never a dependency of the service. One process, the reference's pool size,
 * NODE_ENV=production; Node 20 gets Promise.withResolvers from a preload.
 */
export function startPostGraphile(settings: Settings, log: (line: string) => void): Promise<Server> {
  if (!fs.existsSync(path.join(PEER_DIR, 'node_modules', 'postgraphile'))) {
    log('installing PostGraphile into scripts/bench/postgraphile (npm ci, first use only)...');
    execFileSync('npm', ['ci', '--prefix', PEER_DIR, '--no-audit', '--no-fund', '--loglevel=error'], {
      stdio: ['ignore', 'inherit', 'inherit'],
    });
  }
  return startServer(
    'postgraphile',
    ['--import', path.join(PEER_DIR, 'with-resolvers.mjs'), path.join(PEER_DIR, 'server.mjs')],
    { DATABASE_URL: settings.url, POOL_SIZE: settings.referencePool, NODE_ENV: 'production' },
    'listening ',
  );
}

import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServer, type Server } from '../lib/service-process.ts';
import { ensureBuilt, serviceNodeArgs } from '../lib/start-command.ts';
import type { Settings } from './settings.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const HERE = fileURLToPath(new URL('.', import.meta.url));

/** The service as `npm start` runs it; node:cluster passes --cpu-prof on to the workers: one profile per process. */
export function startService(settings: Settings, profile: boolean, cache: 'hot' | 'cold'): Promise<Server> {
  const env: Record<string, string> = {
    ...(cache === 'cold' ? { RESPONSE_CACHE_MAX_ENTRIES: '0' } : {}),
    ...(cache === 'cold' || !settings.hotTokenCache ? { TOKEN_CACHE_MAX_ENTRIES: '0' } : {}),
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

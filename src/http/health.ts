import { sql, type Kysely } from 'kysely';
import { NO_STORE, RETRY_LATER } from '../platform/errors.ts';
import { hasPendingMigrations } from '../platform/migrate.ts';
import { sendJson } from './respond.ts';
import type { Route } from './router.ts';

/** /health: the process is alive; /ready: the database answers and every migration is applied. No token: probes. */
export function createHealthRoutes(db: Kysely<any>, isAccepting: () => boolean = () => true): Route[] {
  let migrated = false;
  const unavailable = (reason: string) => ({ status: 'unavailable', reason });
  return [
    {
      method: 'GET',
      path: '/health',
      auth: false,
      whileStarting: true,
      anyHost: true,
      handle: ({ res }) => sendJson(res, 200, { status: 'ok' }, NO_STORE),
    },
    {
      method: 'GET',
      path: '/ready',
      auth: false,
      whileStarting: true,
      anyHost: true,
      async handle({ res }) {
        if (!isAccepting()) return sendJson(res, 503, unavailable('not serving'), RETRY_LATER);
        try {
          await sql`SELECT 1`.execute(db);
          // Applied migrations stay applied; ask the migrator only until they are.
          migrated ||= !(await hasPendingMigrations(db));
        } catch {
          return sendJson(res, 503, unavailable('database'), RETRY_LATER);
        }
        if (!migrated) return sendJson(res, 503, unavailable('migrations pending'), RETRY_LATER);
        sendJson(res, 200, { status: 'ready' }, NO_STORE);
      },
    },
  ];
}

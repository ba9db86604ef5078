import { sql } from 'kysely';
import type { Db } from '../platform/db.ts';
import { hasPendingMigrations } from '../platform/migrate.ts';
import { sendJson } from './respond.ts';
import type { Route } from './router.ts';

/**
 * /health: the process is alive (no database). /ready: the database answers and
 * every migration is applied. Neither needs a token, so probes can call them.
 */
export function createHealthRoutes(db: Db, isAccepting: () => boolean = () => true): Route[] {
  let migrated = false;
  return [
    {
      method: 'GET',
      path: '/health',
      auth: false,
      handle: ({ res }) => sendJson(res, 200, { status: 'ok' }, { 'Cache-Control': 'no-store' }),
    },
    {
      method: 'GET',
      path: '/ready',
      auth: false,
      async handle({ res }) {
        // Starting or shutting down: the load balancer should send traffic elsewhere.
        if (!isAccepting()) {
          return sendJson(res, 503, { status: 'unavailable', reason: 'not serving' }, { 'Retry-After': '5', 'Cache-Control': 'no-store' });
        }
        try {
          await sql`SELECT 1`.execute(db);
          // Applied migrations stay applied; ask the migrator only until they are.
          migrated ||= !(await hasPendingMigrations(db));
        } catch {
          return sendJson(res, 503, { status: 'unavailable', reason: 'database' }, { 'Retry-After': '5', 'Cache-Control': 'no-store' });
        }
        if (!migrated) {
          return sendJson(res, 503, { status: 'unavailable', reason: 'migrations pending' }, { 'Retry-After': '5', 'Cache-Control': 'no-store' });
        }
        sendJson(res, 200, { status: 'ready' }, { 'Cache-Control': 'no-store' });
      },
    },
  ];
}

import type { PostgresPool, PostgresPoolClient } from 'kysely';
import type pg from 'pg';
import { isDatabaseUnavailable } from './db-errors.ts';

/**
 * Kysely's view of a pg.Pool that never hands a broken connection back to the
 * pool. After a client-side query timeout (a black-holed network) pg leaves the
 * timed-out query active on the client, and Kysely releases it as healthy: every
 * later query on it would hang too. Releasing with the error makes pg-pool close
 * the client and open a fresh one when the database answers again.
 */
export function discardBrokenClients(pool: pg.Pool): PostgresPool {
  const wrapped = new WeakMap<pg.PoolClient, { client: PostgresPoolClient; broken: unknown }>();
  return {
    async connect() {
      const raw = await pool.connect();
      let entry = wrapped.get(raw);
      if (!entry) {
        const state: { client: PostgresPoolClient; broken: unknown } = {
          broken: undefined,
          client: {
            query: ((...args: [string, unknown[]]) => {
              const result = (raw.query as (...a: unknown[]) => unknown)(...args);
              if (result instanceof Promise) {
                return result.catch((err: unknown) => {
                  if (isDatabaseUnavailable(err)) state.broken = err;
                  throw err;
                });
              }
              return result;
            }) as PostgresPoolClient['query'],
            release() {
              const err = state.broken;
              state.broken = undefined;
              raw.release(err instanceof Error ? err : err === undefined ? undefined : true);
            },
          },
        };
        entry = state;
        wrapped.set(raw, entry);
      }
      return entry.client;
    },
    end: () => pool.end(),
  };
}

import { sql } from 'kysely';
import type { AuthDb } from './tables.ts';

// The login throttle's buckets (login_throttle); throttle.ts decides from the counts.

export interface ThrottleHit {
  key: string;
  hits: number;
  /** Whole seconds until the bucket's window ends (at least 1), by the database's clock. */
  retry_after: number;
}

/** How many expired buckets one hit sweeps away; enough to outpace their creation. */
const THROTTLE_SWEEP_BATCH = 100;

/**
 * Atomic, in fixed windows from a bucket's first hit. The same statement sweeps other expired buckets (SKIP LOCKED:
 * logins never wait on each other's sweep); times come from the database's clock, so skewed instances share a window.
 */
export async function hitLoginThrottle(
  db: AuthDb,
  keys: readonly string[],
  decaySeconds: number,
): Promise<ThrottleHit[]> {
  const keyList = sql.join(keys.map((k) => sql`${k}`));
  const rows = keys.map((k) => sql`(${k}, 1, now() + ${decaySeconds}::int * interval '1 second')`);
  const result = await sql<ThrottleHit>`
    WITH swept AS (
      DELETE FROM login_throttle
      WHERE key IN (
        SELECT key FROM login_throttle
        WHERE expires_at <= now() AND key NOT IN (${keyList})
        ORDER BY expires_at
        LIMIT ${THROTTLE_SWEEP_BATCH}
        FOR UPDATE SKIP LOCKED
      )
    )
    INSERT INTO login_throttle AS t (key, hits, expires_at)
    VALUES ${sql.join(rows)}
    ON CONFLICT (tenant_id, key) DO UPDATE SET
      hits = CASE WHEN t.expires_at <= now() THEN 1 ELSE t.hits + 1 END,
      expires_at = CASE WHEN t.expires_at <= now() THEN excluded.expires_at ELSE t.expires_at END
    RETURNING t.key, t.hits, greatest(1, ceil(extract(epoch FROM t.expires_at - now())))::int AS retry_after
  `.execute(db);
  return result.rows.map((r) => ({ key: r.key, hits: Number(r.hits), retry_after: Number(r.retry_after) }));
}

/** Takes back one counted attempt from each live bucket (an attempt that did not verify a password). */
export async function releaseLoginThrottle(db: AuthDb, keys: readonly string[]): Promise<void> {
  await db
    .updateTable('login_throttle')
    .set({ hits: sql`hits - 1` })
    .where('key', 'in', keys)
    .where('hits', '>', 0)
    .where('expires_at', '>', sql<Date>`now()`)
    .execute();
}

export async function clearLoginThrottle(db: AuthDb, key: string): Promise<void> {
  await db.deleteFrom('login_throttle').where('key', '=', key).execute();
}

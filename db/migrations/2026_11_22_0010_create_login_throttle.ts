import { type Kysely, sql } from 'kysely';

// Frozen: a migration never imports application code and is never edited once released.

/**
 * Login throttling state, shared by every instance on the database. One row per
 * bucket (a hashed (email, ip) pair, or one client IP): a fixed window that starts
 * with its first hit and ends at expires_at. Expired rows are overwritten when
 * their bucket is hit again and swept by later hits, so no cron is needed.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    CREATE TABLE IF NOT EXISTS login_throttle (
      key text PRIMARY KEY,
      hits integer NOT NULL CHECK (hits >= 0),
      expires_at timestamptz NOT NULL
    )
  `.execute(db);
  await sql`CREATE INDEX IF NOT EXISTS login_throttle_expires_at_idx ON login_throttle (expires_at)`.execute(db);
}

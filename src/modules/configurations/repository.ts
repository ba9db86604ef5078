import { sql } from 'kysely';
import type { ConfigurationDb, SavedSelectionRow } from './tables.ts';
import { epochMs } from '../../platform/instants.ts';

export interface ConfigurationRow {
  id: string;
  productId: string;
  selections: SavedSelectionRow[];
  baseCents: number;
  totalCents: number;
  currency: string;
  /** Epoch milliseconds, as the catalogue's reads give updatedAt. */
  productUpdatedAt: number;
  createdAt: number;
}

export interface NewConfiguration {
  id: string;
  productId: string;
  userId: string;
  tokenId: string;
  selections: SavedSelectionRow[];
  baseCents: number;
  totalCents: number;
  currency: string;
  productUpdatedAt: number;
}

// Cents as float8: exact below 2^53, far above any total of 1000 numeric(12,2) prices.
const columns = [
  'id',
  sql<string>`product_id::text`.as('productId'),
  'selections',
  sql<number>`base_cents::float8`.as('baseCents'),
  sql<number>`total_cents::float8`.as('totalCents'),
  'currency',
  epochMs('product_updated_at').as('productUpdatedAt'),
  epochMs('created_at').as('createdAt'),
] as const;

export async function findConfigurationsByIds(
  db: ConfigurationDb,
  ids: readonly string[],
): Promise<ConfigurationRow[]> {
  return await db
    .selectFrom('configurations')
    .select(columns)
    .where('id', '=', sql<string>`ANY(${ids}::text[])`)
    .execute();
}

// Any 32-bit number names this lock space; the second key is the user's.
const SAVE_LOCK = 0x636f6e66;

/**
 * Inserts unless the user saved `perMinute` configurations in the last minute; then returns the seconds until
 * one of those leaves the window. The user's saves are serialised by an advisory lock, so concurrent saves
 * (on any instance) cannot both pass the count. An id already taken (1 in 62^12) inserts nothing: null.
 */
export async function insertConfigurationWithinRate(
  db: ConfigurationDb,
  row: NewConfiguration,
  perMinute: number,
): Promise<{ inserted: ConfigurationRow | null } | { retryAfterSeconds: number }> {
  return db.transaction().execute(async (trx) => {
    await sql`SELECT pg_advisory_xact_lock(${SAVE_LOCK}::int, hashtext(${row.userId}::text))`.execute(trx);
    const recent = await sql<{ n: number; retry_after: number | null }>`
      SELECT count(*)::int AS n,
             ceil(extract(epoch from (min(created_at) + interval '1 minute' - now())))::int AS retry_after
      FROM configurations
      WHERE user_id = ${row.userId}::bigint AND created_at > now() - interval '1 minute'
    `.execute(trx);
    const { n, retry_after } = recent.rows[0]!;
    if (n >= perMinute) return { retryAfterSeconds: Math.max(1, retry_after ?? 60) };
    const inserted = await trx
      .insertInto('configurations')
      .values({
        id: row.id,
        product_id: row.productId,
        user_id: row.userId,
        token_id: row.tokenId,
        selections: JSON.stringify(row.selections),
        base_cents: row.baseCents,
        total_cents: row.totalCents,
        currency: row.currency,
        product_updated_at: new Date(row.productUpdatedAt),
      })
      .onConflict((oc) => oc.columns(['tenant_id', 'id']).doNothing())
      .returning(columns)
      .executeTakeFirst();
    return { inserted: inserted ?? null };
  });
}

export async function deleteConfiguration(db: ConfigurationDb, id: string): Promise<ConfigurationRow | null> {
  return (await db.deleteFrom('configurations').where('id', '=', id).returning(columns).executeTakeFirst()) ?? null;
}

/** Deletes configurations saved more than `days` days ago; returns how many. */
export async function deleteConfigurationsOlderThan(db: ConfigurationDb, days: number): Promise<number> {
  const result = await db
    .deleteFrom('configurations')
    .where('created_at', '<', sql<Date>`now() - make_interval(days => ${days}::int)`)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

import { type Kysely, sql } from 'kysely';

// Frozen: a migration never imports application code and is never edited once released.

export async function up(db: Kysely<any>): Promise<void> {
  // pg_trgm is a trusted extension (PostgreSQL 13+): the database's owner may create it; the
  // embedded database loads it at start (src/platform/db.ts).
  await sql`CREATE EXTENSION IF NOT EXISTS pg_trgm`.execute(db);
  // search: a case-insensitive substring of the name or the sku (ILIKE '%…%'), one index a column,
  // combined by a BitmapOr.
  await sql`CREATE INDEX products_name_trgm_idx ON products USING gin (name gin_trgm_ops)`.execute(db);
  await sql`CREATE INDEX products_sku_trgm_idx ON products USING gin (sku gin_trgm_ops)`.execute(db);
  // One b-tree per orderBy column, ending in id: each single-clause order, and its keyset
  // position, is an index range (DESC walks it backwards, an incremental sort puts ties on id
  // ascending). NAME and SKU sort case-insensitively under "C", then by the value itself, so the
  // order is the same whatever the database's collation.
  await sql`CREATE INDEX products_name_order_idx ON products (lower(name COLLATE "C"), (name COLLATE "C"), id)`.execute(
    db,
  );
  await sql`CREATE INDEX products_sku_order_idx ON products (lower(sku COLLATE "C"), (sku COLLATE "C"), id)`.execute(
    db,
  );
  await sql`CREATE INDEX products_base_price_order_idx ON products (base_price, id)`.execute(db);
  await sql`CREATE INDEX products_created_at_order_idx ON products (created_at, id)`.execute(db);
  // Also serves filter.updatedAfter.
  await sql`CREATE INDEX products_updated_at_order_idx ON products (updated_at, id)`.execute(db);
}

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
  // A substring's selectivity is estimated from the column's histogram: with 100 entries, a search that
  // matches 0.25 % of products hits 0 or 1 of them, and the planner guessed between nothing and 1 %, and
  // at 1 % counted by reading every product. 1,000 entries estimate it within a few matches.
  await sql`ALTER TABLE products ALTER COLUMN name SET STATISTICS 1000, ALTER COLUMN sku SET STATISTICS 1000`.execute(
    db,
  );
  // Two b-trees per orderBy column: (key, id) for ASC and (key DESC, id) for DESC, ties on id
  // ascending either way, so each single-clause order and its keyset position is one index range read
  // forwards. (A backward scan of the first gives ties on id descending: with many equal keys, say every
  // product at base price 0, each page would sort the whole group.) NAME and SKU sort case-insensitively
  // under "C", then by the value itself, so the order is the same whatever the database's collation; by
  // their first 200 characters (the longest the catalogue accepts), as a b-tree entry must fit a third of
  // a page and a row written with SQL may hold a longer one.
  for (const [column, key] of [
    ['name', (dir: string) => `lower(left(name, 200) COLLATE "C") ${dir}, (left(name, 200) COLLATE "C") ${dir}`],
    ['sku', (dir: string) => `lower(left(sku, 200) COLLATE "C") ${dir}, (left(sku, 200) COLLATE "C") ${dir}`],
    ['base_price', (dir: string) => `base_price ${dir}`],
    ['created_at', (dir: string) => `created_at ${dir}`],
    // (updated_at, id) also serves filter.updatedAfter.
    ['updated_at', (dir: string) => `updated_at ${dir}`],
  ] as const) {
    await sql`CREATE INDEX ${sql.id(`products_${column}_order_idx`)} ON products (${sql.raw(key('ASC'))}, id)`.execute(
      db,
    );
    await sql`CREATE INDEX ${sql.id(`products_${column}_desc_order_idx`)} ON products (${sql.raw(key('DESC'))}, id)`.execute(
      db,
    );
  }
}

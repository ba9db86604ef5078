import { type Kysely, sql } from 'kysely';

// Frozen: a migration never imports application code and is never edited once released.

// Under row-level security PostgreSQL uses a condition of the query as an index condition only when every
// function it applies to a column is leakproof (it could otherwise see, or raise an error about, a row of
// another tenant before the policy drops it). lower(), left() and numeric's comparisons are not: the keyset
// positions of 0018's indexes became filters after a scan of the whole tenant. Here each sort key is a
// stored column, compared with text's, bigint's and timestamptz's leakproof operators.

/** [column, its definition]: 0018's sort expressions, stored. */
const KEYS = [
  ['name_key', `text COLLATE "C" GENERATED ALWAYS AS (lower(left(name, 200) COLLATE "C")) STORED`],
  ['name_key_cased', `text COLLATE "C" GENERATED ALWAYS AS (left(name, 200) COLLATE "C") STORED`],
  ['sku_key', `text COLLATE "C" GENERATED ALWAYS AS (lower(left(sku, 200) COLLATE "C")) STORED`],
  ['sku_key_cased', `text COLLATE "C" GENERATED ALWAYS AS (left(sku, 200) COLLATE "C") STORED`],
  // numeric(12,2): whole cents, exactly.
  ['base_price_cents', `bigint GENERATED ALWAYS AS ((base_price * 100)::bigint) STORED`],
] as const;

/** The order indexes of 0018 (rebuilt in 0021 behind tenant_id), replaced by ones on the stored keys. */
const INDEXES = {
  name: ['name_key', 'name_key_cased'],
  sku: ['sku_key', 'sku_key_cased'],
  base_price: ['base_price_cents'],
} as const;

export async function up(db: Kysely<any>): Promise<void> {
  const columns = KEYS.map(([column, definition]) => sql`ADD COLUMN ${sql.id(column)} ${sql.raw(definition)}`);
  await sql`ALTER TABLE products ${sql.join(columns)}`.execute(db);
  for (const [sort, keys] of Object.entries(INDEXES)) {
    // Ties on id ascending in both directions, as in 0018.
    for (const [suffix, direction] of [
      ['order_idx', 'ASC'],
      ['desc_order_idx', 'DESC'],
    ] as const) {
      const name = `products_${sort}_${suffix}`;
      const parts = keys.map((key) => sql`${sql.id(key)} ${sql.raw(direction)}`);
      await sql`DROP INDEX ${sql.id(name)}`.execute(db);
      await sql`CREATE INDEX ${sql.id(name)} ON products (tenant_id, ${sql.join(parts)}, id)`.execute(db);
    }
  }
}

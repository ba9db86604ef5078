import { type Kysely, sql } from 'kysely';

// Frozen: a migration never imports application code and is never edited once released.

/** Above this many products in one statement the notification says "everything" (a payload holds 8,000 bytes). */
const MAX_IDS = 400;

export async function up(db: Kysely<any>): Promise<void> {
  // The catalogue's notifications name what changed, so an instance drops only the cached answers that
  // read it: 'keys:ids', with the products' ids and the letters of what lists depend on that moved:
  // m membership (an insert or a delete), n name, s sku, p base price, c created_at, u updated_at.
  // '*' (and the '' of migration 0013) means anything may have changed.
  //
  // Every change to a product's tree or rules already updates the product's row (0016, 0017's touch
  // triggers), so the products table's own statements name every product touched; the tree tables
  // notify only for TRUNCATE, which names no rows.
  await sql`
    CREATE FUNCTION notify_products_changed() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE
      keys text;
      ids text;
    BEGIN
      IF TG_OP = 'UPDATE' THEN
        IF (SELECT count(*) FROM changed) > ${sql.lit(MAX_IDS)} THEN
          PERFORM pg_notify(TG_ARGV[0], '*');
          RETURN NULL;
        END IF;
        SELECT concat(
          CASE WHEN EXISTS (SELECT id FROM changed EXCEPT SELECT id FROM previous) THEN 'm' END,
          CASE WHEN bool_or(n.name IS DISTINCT FROM o.name) THEN 'n' END,
          CASE WHEN bool_or(n.sku IS DISTINCT FROM o.sku) THEN 's' END,
          CASE WHEN bool_or(n.base_price IS DISTINCT FROM o.base_price) THEN 'p' END,
          CASE WHEN bool_or(n.created_at IS DISTINCT FROM o.created_at) THEN 'c' END,
          CASE WHEN bool_or(n.updated_at IS DISTINCT FROM o.updated_at) THEN 'u' END
        ) INTO keys
        FROM changed n JOIN previous o ON o.id = n.id;
        -- Every row the statement updated, changed or not: a child's change touches a product whose
        -- row may already carry this transaction's stamp.
        SELECT string_agg(id::text, ',') INTO ids FROM (SELECT id FROM changed UNION SELECT id FROM previous) x;
      ELSE
        IF (SELECT count(*) FROM changed) > ${sql.lit(MAX_IDS)} THEN
          PERFORM pg_notify(TG_ARGV[0], '*');
          RETURN NULL;
        END IF;
        keys := 'm';
        SELECT string_agg(id::text, ',') INTO ids FROM changed;
      END IF;
      IF ids IS NOT NULL THEN
        PERFORM pg_notify(TG_ARGV[0], coalesce(keys, '') || ':' || ids);
      END IF;
      RETURN NULL;
    END
    $$
  `.execute(db);
  await sql`DROP TRIGGER products_notify_changed ON products`.execute(db);
  for (const [event, referencing] of [
    ['INSERT', 'NEW TABLE AS changed'],
    ['UPDATE', 'OLD TABLE AS previous NEW TABLE AS changed'],
    ['DELETE', 'OLD TABLE AS changed'],
  ] as const) {
    await sql`
      CREATE TRIGGER ${sql.id(`products_notify_${event.toLowerCase()}`)}
        AFTER ${sql.raw(event)} ON products
        REFERENCING ${sql.raw(referencing)}
        FOR EACH STATEMENT EXECUTE FUNCTION notify_products_changed('catalog_changed')
    `.execute(db);
  }

  await sql`
    CREATE FUNCTION notify_everything_changed() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      PERFORM pg_notify(TG_ARGV[0], '*');
      RETURN NULL;
    END
    $$
  `.execute(db);
  for (const table of ['products', 'steps', 'components', 'customisations', 'configuration_rules']) {
    if (table !== 'products')
      await sql`DROP TRIGGER ${sql.id(`${table}_notify_changed`)} ON ${sql.table(table)}`.execute(db);
    await sql`
      CREATE TRIGGER ${sql.id(`${table}_notify_truncated`)} AFTER TRUNCATE ON ${sql.table(table)}
        FOR EACH STATEMENT EXECUTE FUNCTION notify_everything_changed('catalog_changed')
    `.execute(db);
  }
}

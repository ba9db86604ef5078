import { type Kysely, sql } from 'kysely';

// Frozen: a migration never imports application code and is never edited once released.

const CHILDREN = ['steps', 'components', 'customisations'] as const;

export async function up(db: Kysely<any>): Promise<void> {
  // One timestamp per write: every row a transaction inserts or changes, and the products owning
  // them, get the same updated_at, so the updatedAt a write returns for a step or a customisation
  // is the product's version (what expectedUpdatedAt is checked against). Before, each came from
  // its own clock_timestamp() call and a child could lag its product by a millisecond.
  //
  // The stamp lives in a transaction-local setting. catalog_write_stamp(after) sets or raises it
  // past a product's current version (the service calls it as it locks the product, before any
  // row is written); catalog_write_stamp() reads it, taking the clock (in ms, the precision clients
  // see) the first time a transaction writes without one.
  await sql`
    CREATE FUNCTION catalog_write_stamp(after timestamptz DEFAULT NULL) RETURNS timestamptz LANGUAGE plpgsql AS $$
    DECLARE
      stamp timestamptz := nullif(current_setting('catalog.write_stamp', true), '')::timestamptz;
    BEGIN
      IF stamp IS NULL OR (after IS NOT NULL AND stamp <= after) THEN
        stamp := greatest(coalesce(stamp, date_trunc('milliseconds', clock_timestamp())), after + interval '1 millisecond');
        PERFORM set_config('catalog.write_stamp', stamp::text, true);
      END IF;
      RETURN stamp;
    END
    $$
  `.execute(db);

  await sql`DROP TRIGGER products_stamp_updated_at ON products`.execute(db);
  for (const table of CHILDREN)
    await sql`DROP TRIGGER ${sql.id(`${table}_stamp_updated_at`)} ON ${sql.table(table)}`.execute(db);
  await sql`DROP FUNCTION catalog_stamp_updated_at()`.execute(db);

  // New rows of every catalogue table, and changed child rows: the transaction's stamp.
  await sql`
    CREATE FUNCTION catalog_stamp_row() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      NEW.updated_at := catalog_write_stamp();
      IF TG_OP = 'INSERT' THEN NEW.created_at := NEW.updated_at; END IF;
      RETURN NEW;
    END
    $$
  `.execute(db);
  // A changed product moves strictly forward (two writes in one millisecond, or a clock stepping
  // back, still give a later value), unless this transaction already stamped it: a product renamed
  // and then touched by its children's statements keeps the one stamp.
  await sql`
    CREATE FUNCTION catalog_stamp_product() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF EXISTS (SELECT 1 FROM products p WHERE p.id = OLD.id AND p.xmin = pg_current_xact_id()::xid) THEN
        NEW.updated_at := OLD.updated_at;
      ELSE
        NEW.updated_at := catalog_write_stamp(OLD.updated_at);
      END IF;
      RETURN NEW;
    END
    $$
  `.execute(db);

  for (const table of ['products', ...CHILDREN]) {
    await sql`
      CREATE TRIGGER ${sql.id(`${table}_stamp_inserted`)} BEFORE INSERT ON ${sql.table(table)}
        FOR EACH ROW EXECUTE FUNCTION catalog_stamp_row()
    `.execute(db);
  }
  await sql`
    CREATE TRIGGER products_stamp_updated_at BEFORE UPDATE ON products
      FOR EACH ROW WHEN (OLD.* IS DISTINCT FROM NEW.*) EXECUTE FUNCTION catalog_stamp_product()
  `.execute(db);
  for (const table of CHILDREN) {
    await sql`
      CREATE TRIGGER ${sql.id(`${table}_stamp_updated_at`)} BEFORE UPDATE ON ${sql.table(table)}
        FOR EACH ROW WHEN (OLD.* IS DISTINCT FROM NEW.*) EXECUTE FUNCTION catalog_stamp_row()
    `.execute(db);
  }

  // The tree-touch functions of 2026_11_23_0012, with the transaction's stamp instead of the clock.
  const owners = (rows: string): Record<(typeof CHILDREN)[number], string> => ({
    steps: `SELECT c.product_id FROM ${rows} c`,
    components: `SELECT (SELECT s.product_id FROM steps s WHERE s.id = c.step_id) FROM ${rows} c`,
    customisations: `SELECT (SELECT s.product_id FROM components co JOIN steps s ON s.id = co.step_id WHERE co.id = c.component_id) FROM ${rows} c`,
  });
  // A row changed when anything in it did: a row stamped earlier in this transaction keeps its
  // updated_at on a second change, and its product has been touched already.
  const updatedRows = '(SELECT n.* FROM changed n JOIN previous o ON o.id = n.id WHERE (n.*) IS DISTINCT FROM (o.*))';
  for (const table of CHILDREN) {
    await sql`
      CREATE OR REPLACE FUNCTION ${sql.id(`${table}_touch_products`)}() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'UPDATE' THEN
          UPDATE products SET updated_at = catalog_write_stamp() WHERE id IN (${sql.raw(owners(updatedRows)[table])});
        ELSE
          UPDATE products SET updated_at = catalog_write_stamp() WHERE id IN (${sql.raw(owners('changed')[table])});
        END IF;
        RETURN NULL;
      END
      $$
    `.execute(db);
  }
}

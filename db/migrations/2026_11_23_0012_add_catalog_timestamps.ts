import { type Kysely, sql } from 'kysely';

// Frozen: a migration never imports application code and is never edited once released.

const CHILDREN = ['steps', 'components', 'customisations'] as const;

export async function up(db: Kysely<any>): Promise<void> {
  // Millisecond precision: clients send updatedAt back as expectedUpdatedAt in ISO form
  // (milliseconds), and it must compare equal to what is stored.
  await sql`
    ALTER TABLE products
      ALTER COLUMN created_at TYPE timestamptz(3),
      ALTER COLUMN updated_at TYPE timestamptz(3)
  `.execute(db);
  for (const table of CHILDREN) {
    await sql`
      ALTER TABLE ${sql.table(table)}
        ADD COLUMN created_at timestamptz(3) NOT NULL DEFAULT now(),
        ADD COLUMN updated_at timestamptz(3) NOT NULL DEFAULT now()
    `.execute(db);
  }

  // Reordering swaps the orders of a product's steps in one statement: the uniqueness is
  // checked at the end of the statement, not row by row.
  await sql`ALTER TABLE steps DROP CONSTRAINT steps_product_id_order_key`.execute(db);
  await sql`
    ALTER TABLE steps ADD CONSTRAINT steps_product_id_order_key
      UNIQUE (product_id, "order") DEFERRABLE INITIALLY IMMEDIATE
  `.execute(db);

  // updated_at moves on every real change, whoever makes it (the service, an import, psql), and
  // strictly forward: two writes in one millisecond, or a clock stepping back, still give a later
  // value, so expectedUpdatedAt always notices a write in between.
  await sql`
    CREATE FUNCTION catalog_stamp_updated_at() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      NEW.updated_at := greatest(clock_timestamp(), OLD.updated_at + interval '1 millisecond');
      RETURN NEW;
    END
    $$
  `.execute(db);
  for (const table of ['products', ...CHILDREN]) {
    await sql`
      CREATE TRIGGER ${sql.id(`${table}_stamp_updated_at`)}
        BEFORE UPDATE ON ${sql.table(table)}
        FOR EACH ROW WHEN (OLD.* IS DISTINCT FROM NEW.*)
        EXECUTE FUNCTION catalog_stamp_updated_at()
    `.execute(db);
  }

  // A product's updated_at covers its whole tree: once per statement on a child table, the
  // products owning the changed rows are touched (and stamped by the trigger above). An updated
  // row changed only if the row trigger moved its updated_at: an UPDATE that rewrites the same
  // values touches nothing.
  // Scalar subqueries per changed row: a join would be planned without statistics on the transition
  // table and could scan whole child tables on every write.
  const owners = (rows: string): Record<(typeof CHILDREN)[number], string> => ({
    steps: `SELECT c.product_id FROM ${rows} c`,
    components: `SELECT (SELECT s.product_id FROM steps s WHERE s.id = c.step_id) FROM ${rows} c`,
    customisations: `SELECT (SELECT s.product_id FROM components co JOIN steps s ON s.id = co.step_id WHERE co.id = c.component_id) FROM ${rows} c`,
  });
  const updatedRows =
    '(SELECT n.* FROM changed n JOIN previous o ON o.id = n.id WHERE n.updated_at IS DISTINCT FROM o.updated_at)';
  for (const table of CHILDREN) {
    await sql`
      CREATE FUNCTION ${sql.id(`${table}_touch_products`)}() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'UPDATE' THEN
          UPDATE products SET updated_at = clock_timestamp() WHERE id IN (${sql.raw(owners(updatedRows)[table])});
        ELSE
          UPDATE products SET updated_at = clock_timestamp() WHERE id IN (${sql.raw(owners('changed')[table])});
        END IF;
        RETURN NULL;
      END
      $$
    `.execute(db);
    // Transition tables allow one event per trigger; each names its rows "changed".
    for (const [event, referencing] of [
      ['INSERT', 'NEW TABLE AS changed'],
      ['UPDATE', 'OLD TABLE AS previous NEW TABLE AS changed'],
      ['DELETE', 'OLD TABLE AS changed'],
    ] as const) {
      await sql`
        CREATE TRIGGER ${sql.id(`${table}_touch_products_${event.toLowerCase()}`)}
          AFTER ${sql.raw(event)} ON ${sql.table(table)}
          REFERENCING ${sql.raw(referencing)}
          FOR EACH STATEMENT EXECUTE FUNCTION ${sql.id(`${table}_touch_products`)}()
      `.execute(db);
    }
  }
}

import { type Kysely, sql } from 'kysely';

// Frozen: a migration never imports application code and is never edited once released.

// Each product knows the size of its tree, so a write can check its totals and a read can refuse an answer
// too large to build before it loads a row of it. The counts ride on the statement-level triggers of
// migration 0012, which already update the owning products once per statement.

const RECOUNT = `
  step_count = (SELECT count(*) FROM steps s WHERE s.product_id = p.id),
  component_count = (SELECT count(*) FROM steps s JOIN components c ON c.step_id = s.id WHERE s.product_id = p.id),
  customisation_count = (SELECT count(*) FROM steps s JOIN components c ON c.step_id = s.id
    JOIN customisations x ON x.component_id = c.id WHERE s.product_id = p.id)`;

// Every product at once: one pass over each table, grouped, whatever the planner's statistics say
// (RECOUNT per product, run for every product, is a scan per product when they are stale).
const RECOUNT_ALL = `
  UPDATE products p SET
    step_count = coalesce(st.n, 0), component_count = coalesce(co.n, 0), customisation_count = coalesce(cu.n, 0)
  FROM products q
  LEFT JOIN (SELECT product_id AS id, count(*) AS n FROM steps GROUP BY product_id) st ON st.id = q.id
  LEFT JOIN (SELECT s.product_id AS id, count(*) AS n FROM components c JOIN steps s ON s.id = c.step_id
    GROUP BY s.product_id) co ON co.id = q.id
  LEFT JOIN (SELECT s.product_id AS id, count(*) AS n FROM customisations x JOIN components c ON c.id = x.component_id
    JOIN steps s ON s.id = c.step_id GROUP BY s.product_id) cu ON cu.id = q.id
  WHERE p.id = q.id`;

const CHILDREN = {
  steps: { column: 'step_count', owner: 'c.product_id' },
  components: { column: 'component_count', owner: '(SELECT s.product_id FROM steps s WHERE s.id = c.step_id)' },
  customisations: {
    column: 'customisation_count',
    owner: '(SELECT s.product_id FROM components co JOIN steps s ON s.id = co.step_id WHERE co.id = c.component_id)',
  },
} as const;

export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    ALTER TABLE products
      ADD COLUMN IF NOT EXISTS step_count integer NOT NULL DEFAULT 0,
      ADD COLUMN IF NOT EXISTS component_count integer NOT NULL DEFAULT 0,
      ADD COLUMN IF NOT EXISTS customisation_count integer NOT NULL DEFAULT 0
  `.execute(db);
  // Counting is not a change to the product: its updated_at stays.
  await sql`ALTER TABLE products DISABLE TRIGGER products_stamp_updated_at`.execute(db);
  await sql.raw(RECOUNT_ALL).execute(db);
  await sql`ALTER TABLE products ENABLE TRIGGER products_stamp_updated_at`.execute(db);

  for (const [table, { column, owner }] of Object.entries(CHILDREN)) {
    // Inserts add to the count. Deletes recount: a cascade deletes the children after their parents, when
    // their owner can no longer be found; the parent's own statement trigger fires after its cascade and
    // recounts then. Moving a child to another parent (no service write does) is not counted.
    // The UPDATE branch is 0012's.
    await sql
      .raw(
        `
      CREATE OR REPLACE FUNCTION ${table}_touch_products() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'UPDATE' THEN
          UPDATE products SET updated_at = clock_timestamp() WHERE id IN (
            SELECT ${owner} FROM (SELECT n.* FROM changed n JOIN previous o ON o.id = n.id WHERE n.updated_at IS DISTINCT FROM o.updated_at) c
          );
        ELSIF TG_OP = 'INSERT' THEN
          UPDATE products p SET updated_at = clock_timestamp(), ${column} = p.${column} + d.n
          FROM (SELECT o.owner, count(*) AS n FROM (SELECT ${owner} AS owner FROM changed c) o GROUP BY o.owner) d
          WHERE p.id = d.owner;
        ELSE
          UPDATE products p SET updated_at = clock_timestamp(), ${RECOUNT}
          WHERE p.id IN (SELECT ${owner} FROM changed c);
        END IF;
        RETURN NULL;
      END
      $$
    `,
      )
      .execute(db);
  }
}

import { type Kysely, sql } from 'kysely';

// Frozen: a migration never imports application code and is never edited once released.

// A step, component or customisation moved to another parent (by SQL: no service write moves one) changes
// two products, the one it left and the one it joined. The UPDATE branch of the tree-touch functions
// (0012, 0016, 0017) touched only the owner found through the new parent, and counted nothing: the old
// owner kept its updated_at (syncs by updatedAfter and saved configurations missed the change), got no
// notification (0019 names the products the products table's own statements update, so instances kept
// its cached answers), and both owners' counts (0015) drifted. Here an UPDATE touches the owners found
// through the old parents too, and recounts every owner a row with a new parent left or joined.

/** A product's counts from its tree, as in 0015 and 0017 (copied: a migration never imports another). */
const RECOUNT = {
  step_count: '(SELECT count(*) FROM steps s WHERE s.product_id = p.id)',
  component_count: '(SELECT count(*) FROM steps s JOIN components c ON c.step_id = s.id WHERE s.product_id = p.id)',
  customisation_count: `(SELECT count(*) FROM steps s JOIN components c ON c.step_id = s.id
    JOIN customisations x ON x.component_id = c.id WHERE s.product_id = p.id)`,
};

/** Per tree table: its count column, its parent column, and the product owning a parent id. */
const TREE = {
  steps: { column: 'step_count', parent: 'product_id', owner: (parent: string) => parent },
  components: {
    column: 'component_count',
    parent: 'step_id',
    owner: (parent: string) => `(SELECT s.product_id FROM steps s WHERE s.id = ${parent})`,
  },
  customisations: {
    column: 'customisation_count',
    parent: 'component_id',
    owner: (parent: string) =>
      `(SELECT s.product_id FROM components co JOIN steps s ON s.id = co.step_id WHERE co.id = ${parent})`,
  },
};

/** Counts of the products whose stored ones differ from their trees: one pass over each table, grouped. */
const DRIFTED = `
  SELECT q.id, coalesce(st.n, 0) AS steps, coalesce(co.n, 0) AS components, coalesce(cu.n, 0) AS customisations
  FROM products q
  LEFT JOIN (SELECT product_id AS id, count(*) AS n FROM steps GROUP BY product_id) st ON st.id = q.id
  LEFT JOIN (SELECT s.product_id AS id, count(*) AS n FROM components c JOIN steps s ON s.id = c.step_id
    GROUP BY s.product_id) co ON co.id = q.id
  LEFT JOIN (SELECT s.product_id AS id, count(*) AS n FROM customisations x JOIN components c ON c.id = x.component_id
    JOIN steps s ON s.id = c.step_id GROUP BY s.product_id) cu ON cu.id = q.id
  WHERE (q.step_count, q.component_count, q.customisation_count)
    IS DISTINCT FROM (coalesce(st.n, 0), coalesce(co.n, 0), coalesce(cu.n, 0))`;

export async function up(db: Kysely<any>): Promise<void> {
  const recount = Object.entries(RECOUNT).map(([column, count]) => `${column} = ${count}`);
  const recountMoved = Object.entries(RECOUNT).map(
    ([column, count]) => `${column} = CASE WHEN d.moved THEN ${count} ELSE p.${column} END`,
  );
  for (const [table, { column, parent, owner }] of Object.entries(TREE)) {
    // INSERT and DELETE as in 0017. UPDATE: the parents of the rows that really changed, and the old parents
    // of those given a new one (still where they were: a statement on this table moves none of them), each
    // resolved to its product once. One statement touches every product named, and recounts those that a
    // row with a new parent left or joined; a move between parents of one product recounts it unchanged.
    // Without JIT: planned with no statistics on the transition tables, a repricing of one large product
    // looked costly enough to compile, and compiling took far longer than running it.
    await sql
      .raw(
        `
      CREATE OR REPLACE FUNCTION ${table}_touch_products() RETURNS trigger LANGUAGE plpgsql SET jit = off AS $$
      BEGIN
        IF TG_OP = 'UPDATE' THEN
          UPDATE products p SET updated_at = catalog_write_stamp(), ${recountMoved.join(', ')}
          FROM (
            SELECT ${owner('f.parent')} AS owner, bool_or(f.moved) AS moved
            FROM (
              SELECT m.parent, bool_or(m.moved) AS moved FROM (
                SELECT n.${parent} AS parent, o.${parent} IS DISTINCT FROM n.${parent} AS moved
                FROM changed n JOIN previous o ON o.id = n.id WHERE (n.*) IS DISTINCT FROM (o.*)
                UNION ALL
                SELECT o.${parent}, true
                FROM changed n JOIN previous o ON o.id = n.id WHERE o.${parent} IS DISTINCT FROM n.${parent}
              ) m GROUP BY m.parent
            ) f GROUP BY 1
          ) d
          WHERE p.id = d.owner;
        ELSIF TG_OP = 'INSERT' THEN
          UPDATE products p SET updated_at = catalog_write_stamp(), ${column} = p.${column} + d.n
          FROM (SELECT o.owner, count(*) AS n FROM (SELECT ${owner(`c.${parent}`)} AS owner FROM changed c) o GROUP BY o.owner) d
          WHERE p.id = d.owner;
        ELSE
          UPDATE products p SET updated_at = catalog_write_stamp(), ${recount.join(', ')}
          WHERE p.id IN (SELECT ${owner(`c.${parent}`)} FROM changed c);
        END IF;
        RETURN NULL;
      END
      $$
    `,
      )
      .execute(db);
  }

  // Counts that drifted with earlier moves, recounted once. Those products' trees changed without their
  // updated_at moving: the repair stamps them, so a sync by updatedAfter fetches them again.
  await sql
    .raw(
      `UPDATE products p SET step_count = d.steps, component_count = d.components, customisation_count = d.customisations
       FROM (${DRIFTED}) d WHERE p.id = d.id`,
    )
    .execute(db);
}

import { type Kysely, sql } from 'kysely';

// Frozen: a migration never imports application code and is never edited once released.

// As in 0015 (copied: a migration never imports another).
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

const TREE = {
  steps: { column: 'step_count', owner: 'c.product_id' },
  components: { column: 'component_count', owner: '(SELECT s.product_id FROM steps s WHERE s.id = c.step_id)' },
  customisations: {
    column: 'customisation_count',
    owner: '(SELECT s.product_id FROM components co JOIN steps s ON s.id = co.step_id WHERE co.id = c.component_id)',
  },
} as const;

export async function up(db: Kysely<any>): Promise<void> {
  // Constant defaults: PostgreSQL adds these columns without rewriting or updating a row, so no
  // updated_at moves and existing products are priced in EUR with a base of 0.
  await sql`
    ALTER TABLE products
      ADD COLUMN base_price numeric(12, 2) NOT NULL DEFAULT 0 CONSTRAINT products_base_price_check CHECK (base_price >= 0),
      ADD COLUMN currency text NOT NULL DEFAULT 'EUR' CONSTRAINT products_currency_check CHECK (currency ~ '^[A-Z]{3}$')
  `.execute(db);
  await sql`ALTER TABLE steps ADD COLUMN required boolean NOT NULL DEFAULT false`.execute(db);
  await sql`
    ALTER TABLE components
      ADD COLUMN min_selections integer NOT NULL DEFAULT 0,
      ADD COLUMN max_selections integer DEFAULT 1,
      ADD CONSTRAINT components_selections_check
        CHECK (min_selections >= 0 AND (max_selections IS NULL OR min_selections <= max_selections))
  `.execute(db);
  await sql`
    ALTER TABLE customisations
      ADD COLUMN price_mode text NOT NULL DEFAULT 'ADD'
        CONSTRAINT customisations_price_mode_check CHECK (price_mode IN ('ADD', 'REPLACE_BASE'))
  `.execute(db);

  await sql`
    CREATE TABLE configuration_rules (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      product_id bigint NOT NULL REFERENCES products (id) ON DELETE CASCADE,
      kind text NOT NULL CHECK (kind IN ('REQUIRES', 'EXCLUDES')),
      customisation_id bigint NOT NULL REFERENCES customisations (id) ON DELETE CASCADE,
      other_customisation_id bigint NOT NULL REFERENCES customisations (id) ON DELETE CASCADE,
      message text,
      created_at timestamptz(3) NOT NULL DEFAULT now(),
      CONSTRAINT configuration_rules_not_self CHECK (customisation_id <> other_customisation_id)
    )
  `.execute(db);
  // One rule per (kind, pair). EXCLUDES is symmetric, so (A, B) and (B, A) are the same rule: its pair
  // is keyed smaller id first. REQUIRES is directed: A needs B is not B needs A. Leading with
  // product_id, the index also serves the foreign key and the read of a product's rules.
  await sql`
    CREATE UNIQUE INDEX configuration_rules_pair_key ON configuration_rules (
      product_id,
      kind,
      (CASE WHEN kind = 'EXCLUDES' THEN least(customisation_id, other_customisation_id) ELSE customisation_id END),
      (CASE WHEN kind = 'EXCLUDES' THEN greatest(customisation_id, other_customisation_id) ELSE other_customisation_id END)
    )
  `.execute(db);
  await sql`CREATE INDEX configuration_rules_customisation_id_idx ON configuration_rules (customisation_id)`.execute(
    db,
  );
  await sql`CREATE INDEX configuration_rules_other_customisation_id_idx ON configuration_rules (other_customisation_id)`.execute(
    db,
  );

  // Rules are part of the catalogue: a change tells listening instances to drop cached answers and
  // moves the owning product's updated_at, as a change to any other part of its tree does.
  await sql`
    CREATE TRIGGER configuration_rules_notify_changed
      AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON configuration_rules
      FOR EACH STATEMENT EXECUTE FUNCTION notify_changed('catalog_changed')
  `.execute(db);
  // With the transaction's stamp (migration 0016), as the other tree tables touch their product. An
  // UPDATE touches only when a rule really changed, with the products it left and joined.
  await sql`
    CREATE FUNCTION configuration_rules_touch_products() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP = 'UPDATE' THEN
        UPDATE products SET updated_at = catalog_write_stamp() WHERE id IN (
          SELECT x.product_id FROM changed n JOIN previous o ON o.id = n.id, LATERAL (VALUES (n.product_id), (o.product_id)) x (product_id)
          WHERE (n.*) IS DISTINCT FROM (o.*)
        );
      ELSE
        UPDATE products SET updated_at = catalog_write_stamp() WHERE id IN (SELECT product_id FROM changed);
      END IF;
      RETURN NULL;
    END
    $$
  `.execute(db);
  for (const [event, referencing] of [
    ['INSERT', 'NEW TABLE AS changed'],
    ['UPDATE', 'OLD TABLE AS previous NEW TABLE AS changed'],
    ['DELETE', 'OLD TABLE AS changed'],
  ] as const) {
    await sql`
      CREATE TRIGGER ${sql.id(`configuration_rules_touch_products_${event.toLowerCase()}`)}
        AFTER ${sql.raw(event)} ON configuration_rules
        REFERENCING ${sql.raw(referencing)}
        FOR EACH STATEMENT EXECUTE FUNCTION configuration_rules_touch_products()
    `.execute(db);
  }

  // 0016 re-created the tree-touch functions of 0012 from 0012's text and so dropped the counting 0015
  // had added to them: products' step/component/customisation counts stopped moving. The functions
  // again, with both: 0016's stamp and change test, 0015's counts.
  for (const [table, { column, owner }] of Object.entries(TREE)) {
    await sql
      .raw(
        `
      CREATE OR REPLACE FUNCTION ${table}_touch_products() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'UPDATE' THEN
          UPDATE products SET updated_at = catalog_write_stamp() WHERE id IN (
            SELECT ${owner} FROM (SELECT n.* FROM changed n JOIN previous o ON o.id = n.id WHERE (n.*) IS DISTINCT FROM (o.*)) c
          );
        ELSIF TG_OP = 'INSERT' THEN
          UPDATE products p SET updated_at = catalog_write_stamp(), ${column} = p.${column} + d.n
          FROM (SELECT o.owner, count(*) AS n FROM (SELECT ${owner} AS owner FROM changed c) o GROUP BY o.owner) d
          WHERE p.id = d.owner;
        ELSE
          UPDATE products p SET updated_at = catalog_write_stamp(), ${RECOUNT}
          WHERE p.id IN (SELECT ${owner} FROM changed c);
        END IF;
        RETURN NULL;
      END
      $$
    `,
      )
      .execute(db);
  }
  // Products written while the counting was lost are counted again; counting is not a change to a product.
  await sql`ALTER TABLE products DISABLE TRIGGER products_stamp_updated_at`.execute(db);
  await sql.raw(RECOUNT_ALL).execute(db);
  await sql`ALTER TABLE products ENABLE TRIGGER products_stamp_updated_at`.execute(db);

  // Saved configurations outlive their product (a cart or a quote still points at them): product_id
  // is a plain column, not a foreign key. Selections and prices are snapshots; money is integer
  // cents (bigint: 1,000 lines of 9999999999.99 would overflow numeric(12,2)). The saver is
  // recorded for audit; a deleted user leaves the configuration without one.
  await sql`
    CREATE TABLE configurations (
      id char(12) PRIMARY KEY CONSTRAINT configurations_id_check CHECK (id ~ '^[A-Za-z0-9]{12}$'),
      product_id bigint NOT NULL,
      user_id bigint REFERENCES users (id) ON DELETE SET NULL,
      token_id bigint,
      selections jsonb NOT NULL,
      base_cents bigint NOT NULL,
      total_cents bigint NOT NULL,
      currency text NOT NULL,
      product_updated_at timestamptz(3) NOT NULL,
      created_at timestamptz(3) NOT NULL DEFAULT now()
    )
  `.execute(db);
  // Pruning by age; the per-user save bound counts a user's saves of the last minute (and this
  // index serves the foreign key).
  await sql`CREATE INDEX configurations_created_at_idx ON configurations (created_at)`.execute(db);
  await sql`CREATE INDEX configurations_user_id_created_at_idx ON configurations (user_id, created_at)`.execute(db);
}

import { type Kysely, sql } from 'kysely';

// Frozen: a migration never imports application code and is never edited once released.

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
  await sql`CREATE INDEX configuration_rules_customisation_id_idx ON configuration_rules (customisation_id)`.execute(db);
  await sql`CREATE INDEX configuration_rules_other_customisation_id_idx ON configuration_rules (other_customisation_id)`.execute(db);

  // Rules are part of the catalogue: a change tells listening instances to drop cached answers and
  // moves the owning product's updated_at, as a change to any other part of its tree does.
  await sql`
    CREATE TRIGGER configuration_rules_notify_changed
      AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON configuration_rules
      FOR EACH STATEMENT EXECUTE FUNCTION notify_changed('catalog_changed')
  `.execute(db);
  await sql`
    CREATE FUNCTION configuration_rules_touch_products() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP = 'UPDATE' THEN
        UPDATE products SET updated_at = clock_timestamp()
          WHERE id IN (SELECT product_id FROM changed UNION SELECT product_id FROM previous);
      ELSE
        UPDATE products SET updated_at = clock_timestamp() WHERE id IN (SELECT product_id FROM changed);
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

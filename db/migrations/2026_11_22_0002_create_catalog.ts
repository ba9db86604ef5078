import { type Kysely, sql } from 'kysely';

// Frozen: a migration never imports application code and is never edited once released.

export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    CREATE TABLE products (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      name text NOT NULL,
      sku text NOT NULL UNIQUE,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    )
  `.execute(db);

  await sql`
    CREATE TABLE steps (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      product_id bigint NOT NULL REFERENCES products (id) ON DELETE CASCADE,
      name text NOT NULL,
      "order" integer NOT NULL,
      CONSTRAINT steps_product_id_order_key UNIQUE (product_id, "order")
    )
  `.execute(db);
  // The UNIQUE (product_id, "order") index leads with product_id, so it serves
  // the foreign key and the ordered read of a product's steps at once.

  await sql`
    CREATE TABLE components (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      step_id bigint NOT NULL REFERENCES steps (id) ON DELETE CASCADE,
      name text NOT NULL,
      position integer NOT NULL
    )
  `.execute(db);
  await sql`CREATE INDEX components_step_id_position_idx ON components (step_id, position, id)`.execute(db);

  await sql`
    CREATE TABLE customisations (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      component_id bigint NOT NULL REFERENCES components (id) ON DELETE CASCADE,
      name text NOT NULL,
      type text NOT NULL,
      price numeric(12, 2) NOT NULL CHECK (price >= 0)
    )
  `.execute(db);
  await sql`CREATE INDEX customisations_component_id_idx ON customisations (component_id, id)`.execute(db);
}

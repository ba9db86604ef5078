import { type Kysely, sql } from 'kysely';

// Frozen: a migration never imports application code and is never edited once released.

export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    CREATE TABLE users (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      name text NOT NULL,
      email text NOT NULL UNIQUE CHECK (email = lower(email) AND length(email) <= 254),
      password_hash text NOT NULL,
      is_admin boolean NOT NULL DEFAULT false,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    )
  `.execute(db);

  await sql`
    CREATE TABLE personal_access_tokens (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      user_id bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
      name text NOT NULL,
      token_hash char(64) NOT NULL UNIQUE,
      last_used_at timestamptz NULL,
      expires_at timestamptz NULL,
      created_at timestamptz NOT NULL DEFAULT now()
    )
  `.execute(db);
  await sql`CREATE INDEX personal_access_tokens_user_id_idx ON personal_access_tokens (user_id)`.execute(db);
  await sql`CREATE INDEX personal_access_tokens_expires_at_idx ON personal_access_tokens (expires_at) WHERE expires_at IS NOT NULL`.execute(
    db,
  );
}

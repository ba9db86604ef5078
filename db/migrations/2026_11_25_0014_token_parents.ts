import { type Kysely, sql } from 'kysely';

// Frozen: a migration never imports application code and is never edited once released.

export async function up(db: Kysely<any>): Promise<void> {
  // A token made with another (non-login) token records it; deleting a token deletes what was made from it,
  // transitively. The cascade runs as its own DELETE statements, so the statement-level tokens_changed trigger
  // (0013) fires for them as for the parent's. A parent is always older: parent_id < id rules out cycles,
  // which bounds the ancestor walk authentication makes.
  await sql`
    ALTER TABLE personal_access_tokens
      ADD COLUMN parent_id bigint NULL
        REFERENCES personal_access_tokens (id) ON DELETE CASCADE
        CONSTRAINT personal_access_tokens_parent_older CHECK (parent_id < id)
  `.execute(db);
  await sql`
    CREATE INDEX personal_access_tokens_parent_id_idx ON personal_access_tokens (parent_id) WHERE parent_id IS NOT NULL
  `.execute(db);

  // Login tokens and created tokens are capped separately. Tokens issued before this migration cannot be told
  // apart for certain; those a login makes (named "login", every ability, no own expiry) count as login tokens.
  await sql`
    ALTER TABLE personal_access_tokens
      ADD COLUMN kind text NOT NULL DEFAULT 'created'
        CONSTRAINT personal_access_tokens_kind CHECK (kind IN ('login', 'created'))
  `.execute(db);
  await sql`
    UPDATE personal_access_tokens SET kind = 'login'
    WHERE name = 'login' AND abilities = '["*"]'::jsonb AND expires_at IS NULL
  `.execute(db);
  await sql`CREATE INDEX personal_access_tokens_user_kind_idx ON personal_access_tokens (user_id, kind, id)`.execute(
    db,
  );
}

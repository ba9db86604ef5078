import { type Kysely, sql } from 'kysely';

// Frozen: a migration never imports application code and is never edited once released.

export async function up(db: Kysely<any>): Promise<void> {
  // Sanctum's abilities: a JSON list of strings; ["*"] grants all, and is what every
  // token issued before this migration (all of them login tokens) had in effect.
  await sql`
    ALTER TABLE personal_access_tokens
      ADD COLUMN abilities jsonb NOT NULL DEFAULT '["*"]'::jsonb
      CONSTRAINT personal_access_tokens_abilities_array CHECK (jsonb_typeof(abilities) = 'array')
  `.execute(db);
}

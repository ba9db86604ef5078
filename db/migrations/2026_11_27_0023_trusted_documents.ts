import { type Kysely, sql } from 'kysely';

// Frozen: a migration never imports application code and is never edited once released.

/**
 * Trusted documents: GraphQL documents a client team registers ahead of time, named by their SHA-256.
 * A tenant table like every other (0021): tenant_id leads the key, row-level security forced. Every
 * instance keeps its tenants' documents in memory and drops a tenant's on `documents_changed`.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    CREATE TABLE trusted_documents (
      tenant_id bigint NOT NULL DEFAULT app_tenant() REFERENCES tenants (id),
      hash text NOT NULL CHECK (hash ~ '^[0-9a-f]{64}$'),
      body text NOT NULL CHECK (length(body) > 0),
      created_at timestamptz(3) NOT NULL DEFAULT now(),
      PRIMARY KEY (tenant_id, hash)
    )
  `.execute(db);
  await sql`ALTER TABLE trusted_documents ENABLE ROW LEVEL SECURITY`.execute(db);
  await sql`ALTER TABLE trusted_documents FORCE ROW LEVEL SECURITY`.execute(db);
  await sql`
    CREATE POLICY tenant_isolation ON trusted_documents
      USING (tenant_id = (SELECT app_tenant()))
      WITH CHECK (tenant_id = (SELECT app_tenant()))
  `.execute(db);
  // notify_changed (0021) sends '<tenant>/'; a TRUNCATE outside any tenant sends '/', which means every tenant.
  await sql`
    CREATE TRIGGER trusted_documents_notify_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE
      ON trusted_documents FOR EACH STATEMENT EXECUTE FUNCTION notify_changed('documents_changed')
  `.execute(db);
}

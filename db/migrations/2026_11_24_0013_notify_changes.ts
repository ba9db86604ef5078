import { type Kysely, sql } from 'kysely';

// Frozen: a migration never imports application code and is never edited once released.

const CATALOG = ['products', 'steps', 'components', 'customisations'] as const;

export async function up(db: Kysely<any>): Promise<void> {
  // Every committed change to the catalogue, whoever makes it (the service, an import, psql),
  // tells each listening instance to drop its cached answers. Once per statement: NOTIFY folds
  // identical notifications of one transaction into one, delivered at commit.
  await sql`
    CREATE FUNCTION notify_catalog_changed() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      PERFORM pg_notify('catalog_changed', '');
      RETURN NULL;
    END
    $$
  `.execute(db);
  for (const table of CATALOG) {
    await sql`
      CREATE TRIGGER ${sql.id(`${table}_notify_changed`)}
        AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON ${sql.table(table)}
        FOR EACH STATEMENT EXECUTE FUNCTION notify_catalog_changed()
    `.execute(db);
  }

  // A token revoked or changed, or its user changed or deleted: instances that keep verified
  // tokens forget them. Recording a token's use (last_used_at alone) is not a change.
  await sql`
    CREATE FUNCTION notify_tokens_changed() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      PERFORM pg_notify('tokens_changed', '');
      RETURN NULL;
    END
    $$
  `.execute(db);
  await sql`
    CREATE TRIGGER tokens_notify_deleted AFTER DELETE OR TRUNCATE ON personal_access_tokens
      FOR EACH STATEMENT EXECUTE FUNCTION notify_tokens_changed()
  `.execute(db);
  await sql`
    CREATE TRIGGER tokens_notify_updated AFTER UPDATE ON personal_access_tokens
      FOR EACH ROW WHEN (OLD.* IS DISTINCT FROM NEW.* AND OLD.last_used_at IS NOT DISTINCT FROM NEW.last_used_at)
      EXECUTE FUNCTION notify_tokens_changed()
  `.execute(db);
  await sql`
    CREATE TRIGGER users_notify_changed AFTER UPDATE OR DELETE OR TRUNCATE ON users
      FOR EACH STATEMENT EXECUTE FUNCTION notify_tokens_changed()
  `.execute(db);
}


import { type Kysely, sql } from 'kysely';

// Frozen: a migration never imports application code and is never edited once released.

const CATALOG = ['products', 'steps', 'components', 'customisations'] as const;

export async function up(db: Kysely<any>): Promise<void> {
  // Once per statement: NOTIFY folds identical notifications of one transaction into one,
  // delivered at commit. The channel is the trigger's argument.
  await sql`
    CREATE FUNCTION notify_changed() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      PERFORM pg_notify(TG_ARGV[0], '');
      RETURN NULL;
    END
    $$
  `.execute(db);

  // Every committed change to the catalogue, whoever makes it (the service, an import, psql),
  // tells each listening instance to drop its cached answers.
  for (const table of CATALOG) {
    await sql`
      CREATE TRIGGER ${sql.id(`${table}_notify_changed`)}
        AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON ${sql.table(table)}
        FOR EACH STATEMENT EXECUTE FUNCTION notify_changed('catalog_changed')
    `.execute(db);
  }

  // A token revoked or changed, or its user changed or deleted: instances that keep verified
  // tokens forget them. Recording a token's use (last_used_at alone) is not a change.
  await sql`
    CREATE TRIGGER tokens_notify_deleted AFTER DELETE OR TRUNCATE ON personal_access_tokens
      FOR EACH STATEMENT EXECUTE FUNCTION notify_changed('tokens_changed')
  `.execute(db);
  await sql`
    CREATE TRIGGER tokens_notify_updated AFTER UPDATE ON personal_access_tokens
      FOR EACH ROW WHEN (to_jsonb(OLD) - 'last_used_at' IS DISTINCT FROM to_jsonb(NEW) - 'last_used_at')
      EXECUTE FUNCTION notify_changed('tokens_changed')
  `.execute(db);
  await sql`
    CREATE TRIGGER users_notify_changed AFTER UPDATE OR DELETE OR TRUNCATE ON users
      FOR EACH STATEMENT EXECUTE FUNCTION notify_changed('tokens_changed')
  `.execute(db);
}

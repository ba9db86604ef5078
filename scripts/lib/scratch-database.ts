import pg from 'pg';

export interface ScratchDatabase {
  name: string;
  /** adminUrl with its database replaced by this one. */
  url: string;
  /** The connection that created it, open until drop(). */
  admin: pg.Client;
  drop(): Promise<void>;
}

/**
 * Creates a database on the PostgreSQL server of adminUrl (optionally as a copy of a template; with
 * `replace`, after dropping one of that name a crashed run left) and returns its URL; drop() removes
 * it, with any sessions left.
 */
export async function createScratchDatabase(
  adminUrl: string,
  name: string,
  options: { template?: string; replace?: boolean } = {},
): Promise<ScratchDatabase> {
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  if (options.replace) await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  await admin.query(`CREATE DATABASE ${name}${options.template ? ` TEMPLATE ${options.template}` : ''}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    name,
    url: url.toString(),
    admin,
    async drop() {
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.end();
    },
  };
}

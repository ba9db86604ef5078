import pg from 'pg';

export interface ScratchDatabase {
  name: string;
  /** adminUrl with its database replaced by this one (and its user by the owner, when one is given). */
  url: string;
  /** The connection that created it, open until drop(). */
  admin: pg.Client;
  drop(): Promise<void>;
}

/**
 * An ordinary login role (neither superuser nor BYPASSRLS) to own databases and run the service as, as a
 * deployment would: row-level security binds it. Created once per server; trust authentication assumed.
 */
export async function ensureServiceRole(adminUrl: string, role: string): Promise<void> {
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    const { rowCount } = await admin.query(`SELECT 1 FROM pg_roles WHERE rolname = $1`, [role]);
    if (!rowCount) await admin.query(`CREATE ROLE ${role} LOGIN NOSUPERUSER NOBYPASSRLS`);
  } catch (err) {
    // Two runs creating it at once: the other one won.
    if ((err as { code?: string }).code !== '23505' && (err as { code?: string }).code !== '42710') throw err;
  } finally {
    await admin.end();
  }
}

/**
 * Creates a database on the PostgreSQL server of adminUrl (optionally as a copy of a template; with
 * `replace`, after dropping one of that name a crashed run left) and returns its URL; drop() removes
 * it, with any sessions left.
 */
export async function createScratchDatabase(
  adminUrl: string,
  name: string,
  options: { template?: string; replace?: boolean; owner?: string } = {},
): Promise<ScratchDatabase> {
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  if (options.replace) await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  const template = options.template ? ` TEMPLATE ${options.template}` : '';
  await admin.query(`CREATE DATABASE ${name}${template}${options.owner ? ` OWNER ${options.owner}` : ''}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  if (options.owner) {
    url.username = options.owner;
    url.password = '';
  }
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

import pg from 'pg';
import { loadConfig, type Config } from '../../src/config.ts';
import type { Database } from '../../src/modules/index.ts';
import { createDatabase, databaseOptions, type DatabaseHandle } from '../../src/platform/db.ts';
import { createLogger, type Logger } from '../../src/platform/logger.ts';
import { migrateToLatest } from '../../src/platform/migrate.ts';
import { DEFAULT_TENANT_SLUG, withTenant } from '../../src/platform/tenancy.ts';
import type { TenantRow } from '../../src/modules/tenants/tools.ts';
import { CliError, describeError, usageError } from './cli.ts';

export interface CliContext {
  config: Config;
  database: DatabaseHandle<Database>;
  logger: Logger;
  /** Where the data lives, without credentials: safe to print. */
  target: string;
}

/** The database a CLI talks to, named without the password a DATABASE_URL may carry. */
export function describeTarget(config: Config['database']): string {
  if (!config.url) return `embedded database in ${config.dataDir}`;
  const url = new URL(config.url);
  return `PostgreSQL ${url.hostname || 'localhost'}:${url.port || '5432'}${url.pathname}`;
}

/**
 * Opens the configured database (the same choice as the server: PostgreSQL when
 * DATABASE_URL is set, else the embedded one under DATA_DIR), runs `fn`, and
 * always closes it, so a failed command never leaves the process hanging on a pool.
 */
export async function withDatabase<T>(
  fn: (ctx: CliContext) => Promise<T>,
  options: { poolSize?: number } = {},
): Promise<T> {
  const config = loadConfig();
  // Logs go to stderr and only when something is wrong: stdout is the command's output.
  const logger = createLogger(config.logging.level === 'silent' ? 'silent' : 'warn', process.stderr);
  // Opening the embedded database (WASM, then its files) takes seconds on a busy machine: say so to a person
  // at a terminal, so the command does not look hung. Pipes and files get only the command's own output.
  if (!config.database.url && process.stderr.isTTY) {
    process.stderr.write(`Opening the embedded database in ${config.database.dataDir}…\n`);
  }
  const database = await createDatabase<Database>(
    databaseOptions(config.database, logger, {
      poolSize: options.poolSize ?? 2,
      // Bulk commands run statements of minutes: the server's per-request timeout would fail them half way.
      statementTimeoutMs: config.database.cliStatementTimeoutMs,
      // The admin commands write, and read what they are about to write: the primary only.
      replicaUrls: [],
    }),
  );
  try {
    return await fn({ config, database, logger, target: describeTarget(config.database) });
  } catch (err) {
    throw isStatementTimeout(err) ? statementTimeoutError(err, config.database.cliStatementTimeoutMs) : err;
  } finally {
    await database.close();
  }
}

/** 57014: the server's statement_timeout; the adapter's read timeout when the answer never came. */
export function isStatementTimeout(err: unknown): boolean {
  const e = err as { code?: unknown; message?: unknown } | null;
  return e?.code === '57014' || e?.message === 'Query read timeout';
}

function statementTimeoutError(err: unknown, timeoutMs: number): CliError {
  return new CliError(
    `A statement ran longer than CLI_STATEMENT_TIMEOUT_MS (${timeoutMs} ms) and was stopped (${describeError(err)}). ` +
      'Run the command again with a longer one, e.g. CLI_STATEMENT_TIMEOUT_MS=3600000, or 0 for none.',
  );
}

/** `--tenant SLUG`: every command that reads or writes a company's data takes it (parse options). */
export const TENANT_OPTION = { tenant: { type: 'string', default: DEFAULT_TENANT_SLUG } } as const;

export interface TenantCliContext extends CliContext {
  tenant: TenantRow;
}

/**
 * withDatabase for a command acting on one company's data: migrates, resolves the slug once and runs
 * `fn` inside that tenant, so every statement it sends carries it (row-level security shows nothing to
 * a statement outside any tenant). `ctx.target` names the tenant too.
 */
export async function withTenantDatabase<T>(
  slug: string,
  fn: (ctx: TenantCliContext) => Promise<T>,
  options: { poolSize?: number } = {},
): Promise<T> {
  // Loaded when used: db:migrate, which takes no tenant, starts without the tenants module.
  const { findTenantBySlug, isTenantSlug } = await import('../../src/modules/tenants/tools.ts');
  if (!isTenantSlug(slug))
    throw usageError(`--tenant must be a tenant's slug ([a-z0-9][a-z0-9-]{0,39}), got '${slug}'.`);
  return withDatabase(async (ctx) => {
    await ensureMigrated(ctx);
    const tenant = await findTenantBySlug(ctx.database.db, slug);
    if (!tenant) throw new CliError(`No tenant with slug '${slug}' (see tenant:list).`);
    const target = `tenant ${tenant.slug} in ${ctx.target}`;
    return withTenant(tenant.id, () => fn({ ...ctx, target, tenant }));
  }, options);
}

/**
 * Brings the schema up to date before a command that needs it, as `npm start`
 * does, and says so on stderr when it applied anything. Returns the names applied.
 */
export async function ensureMigrated(ctx: CliContext): Promise<string[]> {
  const result = await migrateToLatest(ctx.database.db);
  const applied = (result.results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
  for (const name of applied) process.stderr.write(`Applied migration ${name}\n`);
  return applied;
}

/**
 * db:migrate on a PostgreSQL server: creates the DATABASE_URL's database when it does not exist yet
 * (as `createdb` would), connecting to the server's `postgres` database to do so. Returns whether it
 * created it. The URL's user needs CREATEDB for that; an existing database is never touched.
 */
export async function createDatabaseIfMissing(databaseUrl: string): Promise<boolean> {
  const probe = new pg.Client({ connectionString: databaseUrl });
  try {
    await probe.connect();
    return false;
  } catch (err) {
    // 3D000 invalid_catalog_name: the database does not exist. Anything else is the caller's to report.
    if ((err as { code?: string }).code !== '3D000') throw err;
  } finally {
    await probe.end().catch(() => {});
  }
  const url = new URL(databaseUrl);
  const name = decodeURIComponent(url.pathname.slice(1));
  url.pathname = '/postgres';
  const admin = new pg.Client({ connectionString: url.toString() });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${admin.escapeIdentifier(name)}`);
    return true;
  } catch (err) {
    // 42P04 duplicate_database: another process created it meanwhile.
    if ((err as { code?: string }).code === '42P04') return false;
    throw err;
  } finally {
    await admin.end();
  }
}

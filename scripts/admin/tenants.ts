/** The tenant (customer company) commands of `npm run admin` (admin.ts loads this file only for them). */
import {
  changeHosts,
  createTenant,
  deleteTenant,
  isTenantSlug,
  listTenantRows,
  parseHosts,
  setTenantState,
  type TenantRow,
} from '../../src/modules/tenants/tools.ts';
import { BadInput, Outcome } from '../../src/platform/errors.ts';
import { CliError, EXIT_USAGE, formatTable, parseCommandLine, usageError } from '../lib/cli.ts';
import { ensureMigrated, withDatabase, type CliContext } from '../lib/database.ts';

/** The lifecycle's refusals as one line each: bad input is the command line's fault (exit 2), the rest exit 1. */
async function withTenants<T>(fn: (ctx: CliContext) => Promise<T>): Promise<T> {
  return withDatabase(async (ctx) => {
    await ensureMigrated(ctx);
    try {
      return await fn(ctx);
    } catch (err) {
      if (err instanceof BadInput) throw new CliError(err.message, EXIT_USAGE);
      if (err instanceof Outcome) throw new CliError(err.message);
      throw err;
    }
  });
}

function requiredSlug(slug: string | undefined): string {
  if (slug === undefined || slug === '') throw usageError('--slug is required.');
  if (!isTenantSlug(slug)) {
    throw usageError(`--slug must be 1 to 40 of a-z, 0-9 and '-', not starting with '-'; got '${slug}'.`);
  }
  return slug;
}

/** Host names are checked before the database is opened, as every usage error is. */
function checkHosts(...lists: string[][]): void {
  try {
    for (const list of lists) parseHosts(list);
  } catch (err) {
    if (err instanceof BadInput) throw usageError(err.message);
    throw err;
  }
}

const hostList = (hosts: readonly string[]) => (hosts.length > 0 ? hosts.join(', ') : 'none');
const warn = (warnings: readonly string[]) => {
  for (const w of warnings) process.stderr.write(`Warning: ${w}\n`);
};

export async function tenantCreate(args: string[]): Promise<void> {
  const { values } = parseCommandLine(args, {
    slug: { type: 'string' },
    name: { type: 'string' },
    host: { type: 'string', multiple: true, default: [] },
  });
  const slug = requiredSlug(values.slug);
  if (values.name === undefined) throw usageError('--name is required.');
  checkHosts(values.host);
  await withTenants(async (ctx) => {
    const { tenant, warnings } = await createTenant(ctx.database.db, { slug, name: values.name!, hosts: values.host });
    process.stdout.write(
      `Created tenant ${tenant.id} '${tenant.slug}' (${tenant.name}) in ${ctx.target}; hosts: ${hostList(tenant.hosts)}.\n`,
    );
    warn(warnings);
  });
}

const formatTime = (d: Date) => d.toISOString().replace(/\.\d{3}Z$/, 'Z');

export async function tenantList(args: string[]): Promise<void> {
  parseCommandLine(args, {});
  await withTenants(async (ctx) => {
    const rows = (await listTenantRows(ctx.database.db)).map((t: TenantRow) => [
      t.id,
      t.slug,
      t.name,
      t.state,
      t.hosts.length > 0 ? t.hosts.join(',') : '-',
      formatTime(t.created_at),
    ]);
    process.stdout.write(formatTable(['id', 'slug', 'name', 'state', 'hosts', 'created_at'], rows));
  });
}

export async function tenantHosts(args: string[]): Promise<void> {
  const { values } = parseCommandLine(args, {
    slug: { type: 'string' },
    add: { type: 'string', multiple: true, default: [] },
    remove: { type: 'string', multiple: true, default: [] },
  });
  const slug = requiredSlug(values.slug);
  checkHosts(values.add, values.remove);
  await withTenants(async (ctx) => {
    const { tenant, added, removed, warnings } = await changeHosts(ctx.database.db, slug, {
      add: values.add,
      remove: values.remove,
    });
    const done = [
      ...(added.length > 0 ? [`added ${added.join(', ')}`] : []),
      ...(removed.length > 0 ? [`removed ${removed.join(', ')}`] : []),
    ];
    process.stdout.write(
      `Tenant '${tenant.slug}'${done.length > 0 ? `: ${done.join('; ')}` : ''}; hosts: ${hostList(tenant.hosts)}.\n`,
    );
    warn(warnings);
  });
}

async function changeState(args: string[], state: 'active' | 'suspended'): Promise<void> {
  const { values } = parseCommandLine(args, { slug: { type: 'string' } });
  const slug = requiredSlug(values.slug);
  await withTenants(async (ctx) => {
    const before = await setTenantState(ctx.database.db, slug, state);
    const verb = state === 'suspended' ? 'suspended' : 'resumed';
    process.stdout.write(
      before.state === state
        ? `Tenant '${slug}' was already ${state}.\n`
        : `Tenant '${slug}' ${verb}: its requests ${state === 'suspended' ? 'answer 403 from now on' : 'are served again'}.\n`,
    );
  });
}

export const tenantSuspend = (args: string[]) => changeState(args, 'suspended');
export const tenantResume = (args: string[]) => changeState(args, 'active');

export async function tenantDelete(args: string[]): Promise<void> {
  const { values } = parseCommandLine(args, { slug: { type: 'string' }, yes: { type: 'boolean', default: false } });
  const slug = requiredSlug(values.slug);
  if (!values.yes) {
    throw usageError(`tenant:delete removes every row of tenant '${slug}' for good: pass --yes to confirm.`);
  }
  await withTenants(async (ctx) => {
    const progress = process.stderr.isTTY ? createProgress() : undefined;
    const { tenant, removed, hosts, warnings } = await deleteTenant(ctx.database.db, slug, progress?.update);
    progress?.done();
    const rows = [...removed, ['tenant_hosts', hosts] as const].map(([table, n]) => [table, String(n)]);
    process.stdout.write(
      `Deleted tenant ${tenant.id} '${tenant.slug}' (${tenant.name}) from ${ctx.target}, removing:\n` +
        formatTable(['table', 'rows'], rows),
    );
    warn(warnings);
  });
}

/** A running count on a terminal, so that a long delete does not look hung. */
function createProgress() {
  let total = 0;
  return {
    update(table: string, rows: number) {
      total += rows;
      process.stderr.write(`\r  ${total} rows removed (${table})\x1b[K`);
    },
    done() {
      if (total > 0) process.stderr.write('\n');
    },
  };
}

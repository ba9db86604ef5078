import type { Kysely } from 'kysely';
import { BadInput, Conflict, NotFound } from '../../platform/errors.ts';
import { DEFAULT_TENANT_ID, DEFAULT_TENANT_SLUG, withTenant } from '../../platform/tenancy.ts';
import { normalizeHost } from './hosts.ts';
import {
  analyzeCatalogTables,
  countTenants,
  deleteHosts,
  deleteProductBatch,
  deleteTenantRow,
  deleteTenantRowsBatch,
  findHostOwners,
  insertHosts,
  insertTenant,
  listTenantOwnedTables,
  updateTenantState,
} from './lifecycle-repository.ts';
import { findTenantBySlug, listTenantRows, type TenantRow } from './repository.ts';
import type { TenantState, TenantTables } from './tables.ts';

/** Creating, re-hosting, suspending and deleting customer companies: the admin CLI's `tenant:*` commands. */

type Db = Kysely<TenantTables>;

const SLUG = /^[a-z0-9][a-z0-9-]{0,39}$/;
const MAX_NAME_LENGTH = 200;

export const isTenantSlug = (slug: string) => SLUG.test(slug);

export const DEFAULT_WITHOUT_HOST_WARNING =
  'the default tenant has no host: once any tenant has one, requests for other hosts answer 404; ' +
  'give it its own first: tenant:hosts --slug default --add …';

function checkSlug(slug: string): void {
  if (!isTenantSlug(slug)) {
    throw new BadInput(`A slug is 1 to 40 lowercase letters, digits and '-', not starting with '-'; got '${slug}'.`);
  }
}

/** Host names as requests are routed by them (lowercased, port stripped); each must be a plain host name. */
export function parseHosts(raw: readonly string[]): string[] {
  const hosts = raw.map((value) => {
    const host = normalizeHost(value);
    // Letters, digits, '-', '.' (a DNS name or IPv4 address) or a bracketed IPv6 address.
    if (host === undefined || !/^([a-z0-9_-]+(\.[a-z0-9_-]+)*|\[[0-9a-f:.]+\])$/.test(host)) {
      throw new BadInput(`'${value}' is not a host name.`);
    }
    return host;
  });
  return [...new Set(hosts)];
}

export async function requireTenant(db: Db, slug: string): Promise<TenantRow> {
  const tenant = isTenantSlug(slug) ? await findTenantBySlug(db, slug) : undefined;
  if (!tenant) throw new NotFound(`No tenant with slug '${slug}' (see tenant:list).`);
  return tenant;
}

async function checkHostsFree(db: Db, hosts: readonly string[], slug: string): Promise<void> {
  const taken = (await findHostOwners(db, hosts)).filter((o) => o.slug !== slug);
  if (taken.length > 0) {
    throw new Conflict(taken.map((o) => `The host ${o.host} belongs to tenant '${o.slug}'.`).join(' '));
  }
}

/** Whether adding a host to a tenant other than `default` would cut off `default`'s requests (see the warning). */
async function defaultLeftWithoutHost(db: Db, slug: string, hosts: readonly string[]): Promise<boolean> {
  if (slug === DEFAULT_TENANT_SLUG || hosts.length === 0) return false;
  const tenants = await listTenantRows(db);
  const fallback = tenants.find((t) => t.id === DEFAULT_TENANT_ID);
  return fallback !== undefined && fallback.hosts.length === 0;
}

export interface TenantChange {
  tenant: TenantRow;
  /** What the operator should know (the default tenant left without a host). */
  warnings: string[];
}

export async function createTenant(
  db: Db,
  input: { slug: string; name: string; hosts: readonly string[] },
): Promise<TenantChange> {
  checkSlug(input.slug);
  const name = input.name.trim();
  if (name.length < 1 || name.length > MAX_NAME_LENGTH) {
    throw new BadInput(`A tenant's name is 1 to ${MAX_NAME_LENGTH} characters.`);
  }
  const hosts = parseHosts(input.hosts);
  if (await findTenantBySlug(db, input.slug)) throw new Conflict(`A tenant with slug '${input.slug}' already exists.`);
  await checkHostsFree(db, hosts, input.slug);
  const warn = await defaultLeftWithoutHost(db, input.slug, hosts);
  await db.transaction().execute(async (trx) => {
    const row = await insertTenant(trx, { slug: input.slug, name });
    await insertHosts(trx, row.id, hosts);
  });
  return { tenant: (await findTenantBySlug(db, input.slug))!, warnings: warn ? [DEFAULT_WITHOUT_HOST_WARNING] : [] };
}

/** Adds and removes hosts in one transaction; a host both added and removed is refused. */
export async function changeHosts(
  db: Db,
  slug: string,
  change: { add: readonly string[]; remove: readonly string[] },
): Promise<TenantChange & { added: string[]; removed: string[] }> {
  const tenant = await requireTenant(db, slug);
  const add = parseHosts(change.add).filter((h) => !tenant.hosts.includes(h));
  const remove = parseHosts(change.remove);
  const both = add.filter((h) => remove.includes(h));
  if (both.length > 0) throw new BadInput(`${both.join(', ')}: both added and removed.`);
  const missing = remove.filter((h) => !tenant.hosts.includes(h));
  if (missing.length > 0) throw new NotFound(`Tenant '${slug}' has no host ${missing.join(', ')}.`);
  await checkHostsFree(db, add, slug);
  const warn = await defaultLeftWithoutHost(db, slug, add);
  const removed = await db.transaction().execute(async (trx) => {
    await insertHosts(trx, tenant.id, add);
    return deleteHosts(trx, tenant.id, remove);
  });
  return {
    tenant: (await findTenantBySlug(db, slug))!,
    added: add,
    removed,
    warnings: warn ? [DEFAULT_WITHOUT_HOST_WARNING] : [],
  };
}

/** Returns the tenant as it was before (its state says whether anything changed). */
export async function setTenantState(db: Db, slug: string, state: TenantState): Promise<TenantRow> {
  const tenant = await requireTenant(db, slug);
  if (tenant.state !== state) await updateTenantState(db, tenant.id, state);
  return tenant;
}

/** Rows per statement when deleting a tenant: each batch is its own short transaction. */
export const DELETE_BATCH_ROWS = 1000;
const PRODUCTS_PER_BATCH = 500;

/** Tables removed before the catalogue, then after it, in this order (children before parents). */
const BEFORE_PRODUCTS = [['configurations', 'id']] as const;
const AFTER_PRODUCTS = [
  ['personal_access_tokens', 'id'],
  ['login_throttle', 'key'],
  ['users', 'id'],
] as const;
const CATALOGUE = ['products', 'steps', 'components', 'customisations', 'configuration_rules'] as const;

/** Rows removed, by table, in the order they went. */
export type RemovedRows = Map<string, number>;

/**
 * Deletes the tenant and every row it owns, in batches of about DELETE_BATCH_ROWS rows, each its own
 * transaction, so other tenants' requests keep being served. The tenant is suspended first: its own
 * requests answer 403 meanwhile, and a delete cut short leaves it suspended, to be run again.
 * `onBatch` hears of each batch (progress). `default` goes only when another tenant is left.
 */
export async function deleteTenant(
  db: Db,
  slug: string,
  onBatch: (table: string, rows: number) => void = () => {},
): Promise<{ tenant: TenantRow; removed: RemovedRows; hosts: number; warnings: string[] }> {
  const tenant = await requireTenant(db, slug);
  // Without a tenant, no request could be served at all (default is the usual last one).
  if ((await countTenants(db)) === 1) throw new Conflict(`The tenant '${slug}' is the only one: it cannot be deleted.`);
  await updateTenantState(db, tenant.id, 'suspended');
  const removed: RemovedRows = new Map();
  const add = (table: string, rows: number) => {
    removed.set(table, (removed.get(table) ?? 0) + rows);
    if (rows > 0) onBatch(table, rows);
  };
  await withTenant(tenant.id, async () => {
    const drain = async (table: string, key: string | undefined) => {
      removed.set(table, removed.get(table) ?? 0);
      for (;;) {
        const rows = await deleteTenantRowsBatch(db, tenant.id, table, key, DELETE_BATCH_ROWS);
        add(table, rows);
        if (rows === 0) return;
      }
    };
    for (const [table, key] of BEFORE_PRODUCTS) await drain(table, key);
    for (const table of CATALOGUE) removed.set(table, 0);
    await analyzeCatalogTables(db);
    for (;;) {
      const counts = await deleteProductBatch(db, tenant.id, DELETE_BATCH_ROWS, PRODUCTS_PER_BATCH);
      for (const table of CATALOGUE) add(table, counts[table]);
      if (counts.products === 0) break;
    }
    for (const [table, key] of AFTER_PRODUCTS) await drain(table, key);
    // Tables added since, which this list does not know: by their physical row ids.
    for (const table of await listTenantOwnedTables(db)) if (!removed.has(table)) await drain(table, undefined);
  });
  let hosts: number;
  try {
    hosts = await deleteTenantRow(db, tenant.id);
  } catch (err) {
    // 23503: a row of the tenant appeared meanwhile (a write already under way when it was suspended).
    if ((err as { code?: unknown }).code === '23503') {
      throw new Conflict(`Rows of tenant '${slug}' were written while it was deleted; run tenant:delete again.`);
    }
    throw err;
  }
  return { tenant, removed, hosts, warnings: (await listTenantRows(db)).some(routable) ? [] : [NOTHING_ROUTABLE] };
}

/** With default gone and no host anywhere, no request finds a tenant. */
const NOTHING_ROUTABLE = 'no tenant has a host and default is gone: every request answers 404 until one has a host.';
const routable = (t: TenantRow) => t.id === DEFAULT_TENANT_ID || t.hosts.length > 0;

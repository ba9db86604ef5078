import { AsyncLocalStorage } from 'node:async_hooks';
import { sql, type Kysely } from 'kysely';

/**
 * The customer company code runs for. The database layer sends it with every statement (pg-pool.ts,
 * db.ts), and row-level security shows and accepts only that tenant's rows; code running outside any
 * tenant sees no rows at all.
 */
const scope = new AsyncLocalStorage<string>();

/** The setting the policies read (the migrations' app_tenant()). */
export const TENANT_SETTING = 'pcs.tenant_id';

/** The tenant every deployment starts with: it holds every row while no tenant has a host. */
export const DEFAULT_TENANT_ID = '1';
export const DEFAULT_TENANT_SLUG = 'default';

/** Runs fn, and everything it starts, as tenantId (an id of the tenants table, as a string). */
export function withTenant<T>(tenantId: string, fn: () => T): T {
  return scope.run(tenantId, fn);
}

let outsideAnyScope: string | undefined;

/** The tenant of the code running now; undefined outside any. */
export function currentTenant(): string | undefined {
  return scope.getStore() ?? outsideAnyScope;
}

/**
 * For test suites and measurement scripts that seed and inspect one tenant's rows directly: code outside
 * any tenant then acts as this one. The service never sets it (its statements outside a tenant see no rows).
 */
export function actOutsideTenantsAs(tenantId: string | undefined): void {
  outsideAnyScope = tenantId;
}

/** A key or tag of a cache shared by tenants, made the current tenant's own. */
export function tenantKey(key: string, tenantId = currentTenant()): string {
  return `${tenantId ?? ''}/${key}`;
}

/**
 * A change notification's tenant and payload ('<tenant>/<payload>', migration 0021); tenant undefined
 * for one that names none (a TRUNCATE's '*', an older trigger's ''): it concerns every tenant.
 */
export function splitTenantPayload(raw: string): { tenant: string | undefined; payload: string } {
  const slash = raw.indexOf('/');
  if (slash <= 0) return { tenant: undefined, payload: raw };
  return { tenant: raw.slice(0, slash), payload: raw.slice(slash + 1) };
}

/** Whether the service's database role escapes row-level security (a superuser, or BYPASSRLS). */
export async function roleBypassesIsolation(db: Kysely<any>): Promise<boolean> {
  const { rows } = await sql<{ bypasses: boolean }>`
    SELECT rolsuper OR rolbypassrls AS bypasses FROM pg_roles WHERE rolname = current_user
  `.execute(db);
  return rows[0]?.bypasses ?? false;
}

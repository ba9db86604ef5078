import type { Kysely } from 'kysely';
import type { TenantState, TenantTables } from './tables.ts';

export interface TenantRow {
  id: string;
  slug: string;
  name: string;
  state: TenantState;
  created_at: Date;
  hosts: string[];
}

/** Every tenant with its hosts, ordered by id: the directory instances route by, and `tenant:list`. */
export async function listTenantRows(db: Kysely<TenantTables>): Promise<TenantRow[]> {
  const [tenants, hosts] = await Promise.all([
    db.selectFrom('tenants').select(['id', 'slug', 'name', 'state', 'created_at']).orderBy('id').execute(),
    db.selectFrom('tenant_hosts').select(['host', 'tenant_id']).orderBy('host').execute(),
  ]);
  const byTenant = new Map<string, string[]>();
  for (const { host, tenant_id } of hosts) {
    let list = byTenant.get(tenant_id);
    if (!list) byTenant.set(tenant_id, (list = []));
    list.push(host);
  }
  return tenants.map((t) => ({ ...t, hosts: byTenant.get(t.id) ?? [] }));
}

export async function findTenantBySlug(db: Kysely<TenantTables>, slug: string): Promise<TenantRow | undefined> {
  const tenant = await db
    .selectFrom('tenants')
    .select(['id', 'slug', 'name', 'state', 'created_at'])
    .where('slug', '=', slug)
    .executeTakeFirst();
  if (!tenant) return undefined;
  const hosts = await db
    .selectFrom('tenant_hosts')
    .select('host')
    .where('tenant_id', '=', tenant.id)
    .orderBy('host')
    .execute();
  return { ...tenant, hosts: hosts.map((h) => h.host) };
}

import type { Generated } from 'kysely';

export type TenantState = 'active' | 'suspended';

export interface TenantTable {
  id: Generated<string>;
  /** `[a-z0-9][a-z0-9-]{0,39}`: how operators and the CLI name a company. */
  slug: string;
  name: string;
  state: Generated<TenantState>;
  created_at: Generated<Date>;
}

export interface TenantHostTable {
  /** A host name of one of the tenant's base addresses: lowercased, no port. */
  host: string;
  tenant_id: string;
  created_at: Generated<Date>;
}

/** Not tenant-owned: every instance reads the whole directory to route requests by host. */
export interface TenantTables {
  tenants: TenantTable;
  tenant_hosts: TenantHostTable;
}

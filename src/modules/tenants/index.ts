export { createTenantDirectory, TENANTS_CHANGED, type TenantDirectory, type RoutedTenant } from './directory.ts';
export { requestHost, normalizeHost } from './hosts.ts';
export { listTenantRows, findTenantBySlug, type TenantRow } from './repository.ts';
export type { TenantTables, TenantState } from './tables.ts';

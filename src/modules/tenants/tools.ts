// The tenants module's surface for the admin CLI (scripts/admin): the lifecycle of customer companies.
// The server takes none of it; its surface is index.ts.
export {
  changeHosts,
  createTenant,
  DEFAULT_WITHOUT_HOST_WARNING,
  DELETE_BATCH_ROWS,
  deleteTenant,
  isTenantSlug,
  parseHosts,
  requireTenant,
  setTenantState,
  type RemovedRows,
  type TenantChange,
} from './lifecycle.ts';
export { findTenantBySlug, listTenantRows, type TenantRow } from './repository.ts';

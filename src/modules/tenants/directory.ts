import type { Kysely } from 'kysely';
import type { Logger } from '../../platform/logger.ts';
import type { ChangeFeed } from '../../platform/notifications.ts';
import { DEFAULT_TENANT_ID } from '../../platform/tenancy.ts';
import { listTenantRows } from './repository.ts';
import type { TenantState, TenantTables } from './tables.ts';

/** Sent by the database when a tenant or a host is added, changed or removed (migration 0021). */
export const TENANTS_CHANGED = 'tenants_changed';

export interface RoutedTenant {
  id: string;
  slug: string;
  state: TenantState;
}

/** A request's tenant by its host; 'unknown' once any tenant has a host and none has this one. */
export type HostResolution = RoutedTenant | 'unknown';

export interface TenantDirectory {
  resolve(host: string | undefined): HostResolution | Promise<HostResolution>;
  /** Loads the directory again now (the admin CLI's changes, when this process does not listen). */
  reload(): Promise<void>;
}

/** Without notifications, how old the directory may grow before a request reloads it. */
const UNFOLLOWED_MAX_AGE_MS = 2_000;

/**
 * Every tenant's hosts in memory, so routing a request costs no statement. Loaded on first use and
 * again on every `tenants_changed` (or, without notifications, when older than two seconds).
 */
export function createTenantDirectory(db: Kysely<TenantTables>, changes: ChangeFeed | undefined, logger: Logger) {
  let byHost = new Map<string, RoutedTenant>();
  let fallback: RoutedTenant | undefined;
  let loadedAt = 0;
  let loading: Promise<void> | undefined;
  let stale = true;

  async function load(): Promise<void> {
    stale = false;
    const rows = await listTenantRows(db);
    const next = new Map<string, RoutedTenant>();
    for (const row of rows)
      for (const host of row.hosts) next.set(host, { id: row.id, slug: row.slug, state: row.state });
    const defaultRow = rows.find((r) => r.id === DEFAULT_TENANT_ID);
    byHost = next;
    // While no tenant has a host, every request is the default tenant's, as before tenants.
    fallback =
      next.size === 0 && defaultRow ? { id: defaultRow.id, slug: defaultRow.slug, state: defaultRow.state } : undefined;
    loadedAt = Date.now();
  }
  function reload(): Promise<void> {
    loading ??= load()
      .catch((err: unknown) => {
        stale = true;
        throw err;
      })
      .finally(() => (loading = undefined));
    return loading;
  }
  const lookup = (host: string | undefined): HostResolution =>
    fallback ?? (host !== undefined ? byHost.get(host) : undefined) ?? 'unknown';

  changes?.on(TENANTS_CHANGED, () => {
    stale = true;
    reload().catch((err: unknown) =>
      logger.warn({ err: { message: (err as Error).message } }, 'tenant directory reload failed'),
    );
  });
  changes?.onState(() => (stale = true));

  return {
    resolve(host) {
      const old = !changes?.up && Date.now() - loadedAt > UNFOLLOWED_MAX_AGE_MS;
      if (loadedAt === 0 || stale || old) return reload().then(() => lookup(host));
      return lookup(host);
    },
    reload,
  } satisfies TenantDirectory;
}

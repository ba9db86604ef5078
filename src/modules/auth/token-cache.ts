import { LRUCache } from 'lru-cache';
import { Counter, Gauge, type Registry } from 'prom-client';
import type { ChangeFeed } from '../../platform/notifications.ts';
import { currentTenant, splitTenantPayload, tenantKey } from '../../platform/tenancy.ts';
import type { TokenWithUserRow } from './repository.ts';

/** Sent by the database when a token is revoked or changed, or its user changed or deleted. */
export const TOKENS_CHANGED = 'tokens_changed';

/**
 * Verified tokens by tenant and id, so a repeated request skips the token lookup. Kept only while the
 * change notifications are up; a notification empties its tenant's part, a change of the feed's state all.
 * A token is looked up only under the tenant of the request's host: on another tenant's host it is unknown.
 * The secret is still compared and the expiry still checked on every request.
 */
export interface TokenCache {
  get(tokenId: string): TokenWithUserRow | undefined;
  /** Taken before a lookup: `set` keeps its row only if nothing changed since. */
  mark(): number;
  set(tokenId: string, row: TokenWithUserRow, mark: number): void;
  /** This process revoked a token: forget its tenant's now, before the notification comes back. */
  clear(): void;
}

export function createTokenCache(options: {
  maxEntries: number;
  ttlMs: number;
  feed: ChangeFeed;
  registry: Registry;
}): TokenCache {
  const { feed, registry } = options;
  const hits = new Counter({
    name: 'auth_token_cache_hits_total',
    help: 'Requests authenticated from the token cache.',
    registers: [registry],
  });
  const misses = new Counter({
    name: 'auth_token_cache_misses_total',
    help: 'Token lookups made while the token cache was available.',
    registers: [registry],
  });
  const rows = new LRUCache<string, TokenWithUserRow>({ max: options.maxEntries, ttl: options.ttlMs });
  new Gauge({
    name: 'auth_token_cache_entries',
    help: 'Verified tokens held by the token cache.',
    registers: [registry],
    collect() {
      this.set(rows.size);
    },
  });

  // Generations: one for everything, one per tenant; a lookup's mark is both.
  let generation = 0;
  const tenantGenerations = new Map<string, number>();
  const markOf = (tenant: string) => generation * 2 ** 26 + (tenantGenerations.get(tenant) ?? 0);
  const clear = () => {
    generation++;
    tenantGenerations.clear();
    rows.clear();
  };
  const clearTenant = (tenant: string) => {
    tenantGenerations.set(tenant, (tenantGenerations.get(tenant) ?? 0) + 1);
    const prefix = tenantKey('', tenant);
    for (const key of rows.keys()) if (key.startsWith(prefix)) rows.delete(key);
  };
  feed.on(TOKENS_CHANGED, (raw) => {
    const { tenant } = splitTenantPayload(raw);
    if (tenant === undefined) clear();
    else clearTenant(tenant);
  });
  feed.onState(clear);

  return {
    get(tokenId) {
      if (!feed.up) return undefined;
      const row = rows.get(tenantKey(tokenId));
      if (row) hits.inc();
      else misses.inc();
      return row;
    },
    mark: () => markOf(currentTenant() ?? ''),
    set(tokenId, row, mark) {
      if (feed.up && mark === markOf(currentTenant() ?? '')) rows.set(tenantKey(tokenId), row);
    },
    clear: () => clearTenant(currentTenant() ?? ''),
  };
}

import { LRUCache } from 'lru-cache';
import { Counter, Gauge, type Registry } from 'prom-client';
import type { ChangeFeed } from '../../platform/notifications.ts';
import type { TokenWithUserRow } from './repository.ts';

/** Sent by the database when a token is revoked or changed, or its user changed or deleted. */
export const TOKENS_CHANGED = 'tokens_changed';

/**
 * Verified tokens by id, so a repeated request skips the token lookup. Kept only while the change
 * notifications are up; every notification, and every change of the feed's state, empties it.
 * The secret is still compared and the expiry still checked on every request.
 */
export interface TokenCache {
  get(tokenId: string): TokenWithUserRow | undefined;
  /** Taken before a lookup: `set` keeps its row only if nothing changed since. */
  mark(): number;
  set(tokenId: string, row: TokenWithUserRow, mark: number): void;
  /** This process revoked a token: forget them all now, before the notification comes back. */
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

  let generation = 0;
  const clear = () => {
    generation++;
    rows.clear();
  };
  feed.on(TOKENS_CHANGED, clear);
  feed.onState(clear);

  return {
    get(tokenId) {
      if (!feed.up) return undefined;
      const row = rows.get(tokenId);
      if (row) hits.inc();
      else misses.inc();
      return row;
    },
    mark: () => generation,
    set(tokenId, row, mark) {
      if (feed.up && mark === generation) rows.set(tokenId, row);
    },
    clear,
  };
}

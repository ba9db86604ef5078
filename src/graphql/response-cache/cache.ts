import type { Registry } from 'prom-client';
import type { ChangeFeed } from '../../platform/notifications.ts';
import { requestContext } from '../../platform/request-context.ts';
import { splitTenantPayload, tenantKey } from '../../platform/tenancy.ts';
import { createAdmission } from './admission.ts';
import { createFreshnessGuard } from './freshness.ts';
import { UNCACHEABLE } from './key.ts';
import { createCacheMetrics } from './metrics.ts';
import { createSingleFlight } from './single-flight.ts';
import { createEntryStore, type Entry } from './store.ts';

export interface ResponseCacheOptions {
  maxEntries: number;
  maxBytes: number;
  /** The largest answer kept. */
  maxAnswerBytes: number;
  /** 0..1: the most of the bytes one token's answers may hold once they would evict others'. */
  maxTokenShare: number;
  ttlMs: number;
  registry: Registry;
}

/**
 * The shared response cache: the store of entries and tags, the freshness guard, single flight and
 * admission behind one surface, which the plugin (use-response-cache.ts) and the answers sent before
 * Yoga (serve.ts) drive, and the change feed empties (followChanges).
 */
export function createResponseCache(options: ResponseCacheOptions) {
  const m = createCacheMetrics(options.registry, () => store);
  const store = createEntryStore({ ...options, onEvict: () => m.evictions.inc() });
  const keys = Math.max(1_000, options.maxEntries);
  const freshness = createFreshnessGuard({ maxKeys: keys });
  const admission = createAdmission({ ...options, maxKeys: keys });
  const flights = createSingleFlight<Entry>();
  let available = false;
  let catchUpWith: (() => Promise<boolean>) | undefined;

  const served = (entry: Entry) => {
    m.hits.inc();
    namedAsExecuted(entry);
  };
  const cache = {
    get available() {
      return available;
    },
    /** The stored answer, counted as a hit. */
    lookup(key: string): Entry | undefined {
      if (!available) return undefined;
      const entry = store.get(key);
      if (entry) served(entry);
      return entry;
    },
    /** The answer of an identical request executing now, counted as a hit when there is one. */
    join(key: string, follower: object, signal?: AbortSignal): Promise<Entry | undefined> | undefined {
      const waiting = available ? flights.join(key, follower, signal) : undefined;
      return waiting?.then((entry) => {
        if (entry) {
          served(entry);
          m.coalesced.inc();
        }
        return entry;
      });
    },
    /** Nothing to serve: the request will compute the answer under `key`. */
    missed(key: string) {
      if (!available) return;
      admission.sighted(key);
      freshness.began(key);
    },
    /** `leader` executes the query it missed: identical requests until it lands wait for its answer. */
    executing(key: string, leader: object) {
      if (!available) return;
      m.misses.inc();
      flights.takeOff(key, leader);
    },
    /**
     * `leader`'s answer, shareable: handed to the requests that waited, and kept if nothing it read
     * changed since it began and admission lets it in.
     */
    offer(key: string, leader: object, entry: Entry) {
      if (!available || key.startsWith(UNCACHEABLE) || !freshness.fresh(key, entry.tags)) return;
      // Requests that waited get it whether or not it is kept: it is as fresh as theirs.
      flights.land(key, leader, entry);
      if (admission.refusal(key, entry.bytes, entry.owner, store)) m.refused.inc();
      else store.set(key, entry);
    },
    /** `leader`'s request is answered: those waiting on it go on alone if it shared nothing. */
    land(key: string, leader: object) {
      flights.land(key, leader, undefined);
    },
    /** Drops the answers that read any of these tags, and refuses those being computed. */
    changed(tags: readonly string[]) {
      freshness.changed(tags);
      m.targeted.inc();
      m.dropped.inc(store.dropTagged(tags));
    },
    /** Forgets one tenant's answers (a change that could not name its rows), and refuses those being computed. */
    clearTenant(tenant: string) {
      const tags = [tenantKey(EVERYTHING, tenant)];
      freshness.changed(tags);
      store.dropTagged(tags);
      m.invalidations.inc();
    },
    /** Forgets every answer, and refuses those computed before now. */
    clear() {
      freshness.changedEverything();
      store.clear();
      m.invalidations.inc();
    },
    /** Once every change committed so far has been applied here: a writer then reads its own write. */
    async catchUp() {
      if (!available) return;
      if (!catchUpWith || !(await catchUpWith())) cache.clear();
    },
    /** Unavailable: nothing is served or kept (the change notifications are down). Either way it starts empty. */
    setAvailable(next: boolean) {
      cache.clear();
      available = next;
    },
    followWith(sync: () => Promise<boolean>) {
      catchUpWith = sync;
    },
  };
  return cache;
}

export type ResponseCache = ReturnType<typeof createResponseCache>;

/** The tag every answer carries in its tenant: a change that names no rows drops the tenant's answers. */
export const EVERYTHING = '*';

/**
 * Each change notification drops the answers that read what it names (`tagsOf` reads its payload), or
 * everything; while the notifications are down the cache is not used.
 */
export function followChanges(
  cache: ResponseCache,
  feed: ChangeFeed,
  channel: string,
  tagsOf: (payload: string) => readonly string[] | 'all',
): void {
  cache.setAvailable(feed.up);
  cache.followWith(() => feed.sync(channel, CATCH_UP_TIMEOUT_MS));
  feed.on(channel, (raw) => {
    const { tenant, payload } = splitTenantPayload(raw);
    if (tenant === undefined) return cache.clear();
    const tags = tagsOf(payload);
    if (tags === 'all') cache.clearTenant(tenant);
    else cache.changed(tags.map((tag) => tenantKey(tag, tenant)));
  });
  feed.onState((up) => cache.setAvailable(up));
}

/** The access log and metrics name a hit's operation as its first execution did. */
function namedAsExecuted(entry: Entry): void {
  const request = requestContext.getStore();
  if (request) {
    request.operationName ??= entry.operationName;
    request.operationRan = true;
  }
}

/** A writer's wait for its own change to come back; past it, this instance empties its cache instead. */
const CATCH_UP_TIMEOUT_MS = 1_000;

import type { Cache } from '@graphql-yoga/plugin-response-cache';
import type { ExecutionResult } from 'graphql';
import { LRUCache } from 'lru-cache';
import { Counter, Gauge, type Registry } from 'prom-client';
import type { ChangeFeed } from '../platform/notifications.ts';
import { requestContext } from '../platform/request-context.ts';

export interface ResponseStore extends Cache {
  readonly available: boolean;
  /** Forgets every answer, and refuses those computed before now. */
  clear(): void;
  /** Unavailable: nothing is served or kept (the change notifications are down). Either way it starts empty. */
  setAvailable(available: boolean): void;
  /** A query ran because nothing was served from the store. */
  countMiss(): void;
}

interface Entry {
  /** The answer's body as sent: what the byte bound counts is what the store holds. */
  json: string;
  /** What Yoga turns into response headers (the plugin's ETag and Last-Modified), never into the body. */
  http: unknown;
  bytes: number;
  /** What the access log and metrics call the operation, which a hit never executes to learn. */
  operationName: string | null | undefined;
}

/** The key of a request whose variables cannot be serialised (nested past the stack): never stored. */
export const UNCACHEABLE = 'uncacheable:';

/** A hit as Yoga serialises it (it calls a result's own `stringify`): the stored body, not another walk. */
const storedAnswer = ({ json, http }: Entry): ExecutionResult =>
  ({ stringify: () => json, ...(http ? { extensions: { http } } : {}) }) as ExecutionResult;

/** The body Yoga would send for `result`: `extensions.http` becomes headers, an empty `extensions` goes. */
function body(result: ExecutionResult): { json: string; http: unknown } {
  const { extensions, ...rest } = result;
  const { http, ...others } = (extensions ?? {}) as Record<string, unknown>;
  return { json: JSON.stringify(Object.keys(others).length ? { ...rest, extensions: others } : rest), http };
}

export function createResponseStore(options: {
  maxEntries: number;
  maxBytes: number;
  ttlMs: number;
  registry: Registry;
}): ResponseStore {
  const { registry } = options;
  const counter = (name: string, help: string) => new Counter({ name, help, registers: [registry] });
  const hits = counter('graphql_response_cache_hits_total', 'GraphQL queries answered from the response cache.');
  const misses = counter(
    'graphql_response_cache_misses_total',
    'GraphQL queries executed while the response cache was available.',
  );
  const evictions = counter(
    'graphql_response_cache_evictions_total',
    'Answers dropped to stay within the entry and byte bounds.',
  );
  const refused = counter(
    'graphql_response_cache_admissions_refused_total',
    'Answers not kept: asked for the first time while the cache was full (see the doorkeeper).',
  );
  const invalidations = counter(
    'graphql_response_cache_invalidations_total',
    'Times the whole response cache was emptied (a write, or the change notifications lost or back).',
  );
  const entries = new LRUCache<string, Entry>({
    max: options.maxEntries,
    maxSize: options.maxBytes,
    sizeCalculation: (entry) => entry.bytes,
    ttl: options.ttlMs,
    dispose: (_value, _key, reason) => {
      if (reason === 'evict') evictions.inc();
    },
  });
  new Gauge({
    name: 'graphql_response_cache_entries',
    help: 'Answers held by the response cache.',
    registers: [registry],
    collect() {
      this.set(entries.size);
    },
  });
  new Gauge({
    name: 'graphql_response_cache_bytes',
    help: 'Bytes of JSON held by the response cache.',
    registers: [registry],
    collect() {
      this.set(entries.calculatedSize);
    },
  });

  // An answer computed across a change must not be kept: each miss notes the generation it began
  // in, and only an answer whose generation is still current is stored. A second miss on the same
  // key keeps the older note, so concurrent executions err towards not caching.
  let generation = 0;
  const startedIn = new LRUCache<string, number>({ max: Math.max(1_000, options.maxEntries) });
  // TinyLFU's doorkeeper: the keys asked for once lately. A full cache admits only an answer asked for
  // again, so a flood of one-off queries (unique variables) cannot evict the answers that repeat. Room
  // that is free is taken at once: filling it evicts nothing, and an emptied cache warms as fast as before.
  // The plugin looks a request's key up twice (early, then again at execution): a sighting is a request.
  const asked = new LRUCache<string, { by: string | undefined; again: boolean }>({
    max: Math.max(1_000, options.maxEntries),
  });
  const hasRoomFor = (bytes: number) =>
    entries.size < options.maxEntries && entries.calculatedSize + bytes <= options.maxBytes;
  let available = false;

  return {
    get available() {
      return available;
    },
    get(key) {
      if (!available) return undefined;
      const entry = entries.get(key);
      if (entry) {
        hits.inc();
        const request = requestContext.getStore();
        if (request) {
          request.operationName ??= entry.operationName;
          request.operationRan = true;
        }
        return storedAnswer(entry);
      }
      if (!startedIn.has(key)) startedIn.set(key, generation);
      const by = requestContext.getStore()?.reqId;
      const sighting = asked.get(key);
      if (!sighting) asked.set(key, { by, again: false });
      else if (by === undefined || sighting.by !== by) sighting.again = true;
      return undefined;
    },
    set(key, result, _entities, ttl) {
      const began = startedIn.get(key);
      startedIn.delete(key);
      if (!available || began !== generation || key.startsWith(UNCACHEABLE)) return;
      const { json, http } = body(result);
      const bytes = Buffer.byteLength(json);
      if (asked.get(key)?.again !== true && !hasRoomFor(bytes)) {
        refused.inc();
        return;
      }
      asked.delete(key);
      const operationName = requestContext.getStore()?.operationName;
      entries.set(key, { json, http, bytes, operationName }, { ttl: Math.min(ttl, options.ttlMs) });
    },
    // Entity-level invalidation cannot reach pages and totals: every change empties the store instead.
    invalidate() {
      this.clear();
    },
    clear() {
      generation++;
      entries.clear();
      invalidations.inc();
    },
    setAvailable(next) {
      this.clear();
      available = next;
    },
    countMiss: () => misses.inc(),
  };
}

/** Each change notification empties the store; while the notifications are down the store is not used. */
export function followChanges(store: ResponseStore, feed: ChangeFeed, channel: string): void {
  store.setAvailable(feed.up);
  feed.on(channel, () => store.clear());
  feed.onState((up) => store.setAvailable(up));
}

import { createHash, randomUUID } from 'node:crypto';
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
  /** A stored answer's body and headers, counted as a hit; nothing else (no miss is noted). */
  lookup(key: string): { json: string; headers: Record<string, string> } | undefined;
  /** Forgets the answers that read any of these tags (request-context.ts), and refuses those being computed. */
  invalidateTags(tags: readonly string[]): void;
  /** Once every change committed so far has been applied here: a writer then reads its own write. */
  catchUp(): Promise<void>;
  /** The request is about to execute a query it missed: identical requests until it lands wait for its answer. */
  takeOff(): void;
  /** The request writes: its answer is never stored. */
  passOver(): void;
  /** The request's answer is out: requests waiting on its execution (single flight) go on without it if it was not stored. */
  land(): void;
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
  /** What it was read from: a change to one of them drops it. */
  tags: readonly string[];
}

/** A miss being executed: identical requests meanwhile wait for its answer instead of executing again. */
interface Flight {
  by: string | undefined;
  /** performance.now() at take-off: a flight older than FLIGHT_MAX_MS is not joined (its request was lost). */
  at: number;
  landed: Promise<Entry | undefined>;
  land(entry: Entry | undefined): void;
}

/** The key of a request whose variables cannot be serialised (nested past the stack): never stored. */
export const UNCACHEABLE = 'uncacheable:';

/** Who may share an answer: callers allowed exactly the same. */
export const cacheSessionOf = (scopes: readonly string[]) => [...scopes].sort().join(' ');

/** An answer's key: the caller's scopes and the request as sent (document, operation name, variables). */
export function responseCacheKey(
  sessionId: string,
  operationName: string | null | undefined,
  documentString: string,
  variableValues: unknown,
): string {
  let text: string;
  try {
    text = JSON.stringify([sessionId, operationName ?? null, documentString, variableValues ?? null]);
  } catch {
    return `${UNCACHEABLE}${randomUUID()}`;
  }
  return createHash('sha256').update(text).digest('base64url');
}

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
}) {
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
    'Times the whole response cache was emptied (a truncate or a large write, or the change notifications lost or back).',
  );
  const targeted = counter(
    'graphql_response_cache_targeted_invalidations_total',
    'Changes that dropped only the answers that read what changed.',
  );
  const dropped = counter(
    'graphql_response_cache_dropped_total',
    'Answers dropped by targeted invalidations (the whole cache emptied is not counted here).',
  );
  const coalesced = counter(
    'graphql_response_cache_coalesced_total',
    'Queries answered by an identical query executing at the same time (single flight).',
  );
  // The keys of the answers that read each tag, kept in step with the entries.
  const byTag = new Map<string, Set<string>>();
  const untag = (key: string, tags: readonly string[]) => {
    for (const tag of tags) {
      const keys = byTag.get(tag);
      if (!keys) continue;
      keys.delete(key);
      if (keys.size === 0) byTag.delete(tag);
    }
  };
  const entries = new LRUCache<string, Entry>({
    max: options.maxEntries,
    maxSize: options.maxBytes,
    sizeCalculation: (entry) => entry.bytes,
    ttl: options.ttlMs,
    dispose: (value, key, reason) => {
      if (reason === 'evict') evictions.inc();
      untag(key, value.tags);
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

  // An answer computed across a change to what it read must not be kept: each miss notes the step it
  // began at, each invalidation is a step, and an answer is stored only if none of its tags (nor
  // everything) was invalidated after it began. A second miss on the same key keeps the older note,
  // so concurrent executions err towards not caching.
  let step = 0;
  let everythingAt = 0;
  // When each recently invalidated tag was; a tag forgotten here counts as invalidated at `forgottenAt`.
  let forgottenAt = 0;
  const tagInvalidatedAt = new LRUCache<string, number>({
    max: 100_000,
    dispose: (at) => void (forgottenAt = Math.max(forgottenAt, at)),
  });
  const changedSince = (began: number, tags: Iterable<string>) => {
    if (began < everythingAt || began < forgottenAt) return true;
    for (const tag of tags) if ((tagInvalidatedAt.get(tag) ?? 0) > began) return true;
    return false;
  };
  const startedIn = new LRUCache<string, number>({ max: Math.max(1_000, options.maxEntries) });
  const flights = new Map<string, Flight>();
  // The key each request in progress missed, by request id: what it executes. Bounded: a request
  // that never reached land() (none should) is forgotten in time.
  const missedBy = new LRUCache<string, string>({ max: 10_000 });
  const writers = new LRUCache<string, true>({ max: 10_000 });
  // Keys whose execution ended without an answer to share (errors, private fields): not waited for.
  const unshared = new LRUCache<string, true>({ max: 1_000 });
  let catchUpWith: (() => Promise<boolean>) | undefined;
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
    lookup(key) {
      if (!available) return undefined;
      const entry = entries.get(key);
      if (!entry) return undefined;
      served(entry);
      const headers = (entry.http as { headers?: Record<string, string> } | undefined)?.headers ?? {};
      return { json: entry.json, headers };
    },
    get(key) {
      if (!available) return undefined;
      const entry = entries.get(key);
      if (entry) return served(entry);
      const by = requestContext.getStore()?.reqId;
      let flight = flights.get(key);
      if (flight && performance.now() - flight.at > FLIGHT_MAX_MS) {
        flights.delete(key);
        flight = undefined;
      }
      if (flight && flight.by !== by && by !== undefined && !unshared.has(key)) {
        const signal = requestContext.getStore()?.controller?.signal;
        return waitFor(flight, signal).then((landed) => {
          if (!landed) return undefined;
          coalesced.inc();
          return served(landed);
        });
      }
      if (by !== undefined) missedBy.set(by, key);
      if (!startedIn.has(key)) startedIn.set(key, step);
      const sighting = asked.get(key);
      if (!sighting) asked.set(key, { by, again: false });
      else if (by === undefined || sighting.by !== by) sighting.again = true;
      return undefined;
    },
    set(key, result, _entities, ttl) {
      const began = startedIn.get(key);
      startedIn.delete(key);
      const request = requestContext.getStore();
      if (request && writers.has(request.reqId)) return;
      const tags = [...(request?.readFrom ?? [])];
      if (!available || began === undefined || changedSince(began, tags) || key.startsWith(UNCACHEABLE)) return;
      const { json, http } = body(result);
      const bytes = Buffer.byteLength(json);
      const entry: Entry = { json, http, bytes, operationName: request?.operationName, tags };
      // Requests that waited get the answer whether or not the store keeps it: it is as fresh as theirs.
      settle(key, request?.reqId, entry);
      if (asked.get(key)?.again !== true && !hasRoomFor(bytes)) {
        refused.inc();
        return;
      }
      asked.delete(key);
      entries.set(key, entry, { ttl: Math.min(ttl, options.ttlMs) });
      for (const tag of tags) {
        let keys = byTag.get(tag);
        if (!keys) byTag.set(tag, (keys = new Set()));
        keys.add(key);
      }
    },
    // The plugin's entity invalidation is not used: the change feed's tags name what changed.
    invalidate() {
      this.clear();
    },
    invalidateTags(tags) {
      step++;
      targeted.inc();
      for (const tag of tags) {
        tagInvalidatedAt.set(tag, step);
        const keys = byTag.get(tag);
        if (!keys) continue;
        for (const key of [...keys]) {
          if (entries.delete(key)) dropped.inc();
        }
      }
    },
    clear() {
      step++;
      everythingAt = step;
      entries.clear();
      byTag.clear();
      invalidations.inc();
    },
    async catchUp() {
      if (!available) return;
      if (!catchUpWith || !(await catchUpWith())) this.clear();
    },
    takeOff() {
      const by = requestContext.getStore()?.reqId;
      const key = by === undefined ? undefined : missedBy.get(by);
      const current = key === undefined ? undefined : flights.get(key);
      const stale = current !== undefined && performance.now() - current.at > FLIGHT_MAX_MS;
      if (key !== undefined && (!current || stale) && !unshared.has(key)) flights.set(key, newFlight(by));
    },
    passOver() {
      const by = requestContext.getStore()?.reqId;
      if (by !== undefined) writers.set(by, true);
    },
    land() {
      const by = requestContext.getStore()?.reqId;
      if (by === undefined) return;
      const key = missedBy.get(by);
      missedBy.delete(by);
      writers.delete(by);
      if (key !== undefined) settle(key, by, undefined);
    },
    setAvailable(next) {
      this.clear();
      available = next;
    },
    countMiss: () => misses.inc(),
    followWith(sync: () => Promise<boolean>) {
      catchUpWith = sync;
    },
  } satisfies ResponseStore & { followWith(sync: () => Promise<boolean>): void };

  function served(entry: Entry): ExecutionResult {
    hits.inc();
    const request = requestContext.getStore();
    if (request) {
      request.operationName ??= entry.operationName;
      request.operationRan = true;
    }
    return storedAnswer(entry);
  }

  function settle(key: string, by: string | undefined, entry: Entry | undefined) {
    const flight = flights.get(key);
    if (!flight || flight.by !== by) return;
    flights.delete(key);
    if (!entry) unshared.set(key, true);
    flight.land(entry);
  }
}

/** Longer than any execution should take (GRAPHQL_EXECUTION_TIMEOUT_MS defaults to 10 s). */
const FLIGHT_MAX_MS = 15_000;

function newFlight(by: string | undefined): Flight {
  let land!: (entry: Entry | undefined) => void;
  const landed = new Promise<Entry | undefined>((resolve) => (land = resolve));
  return { by, at: performance.now(), landed, land };
}

/** The flight's answer, or nothing once the waiting request is aborted (its deadline, its client gone). */
function waitFor(flight: Flight, signal: AbortSignal | undefined): Promise<Entry | undefined> {
  if (!signal) return flight.landed;
  if (signal.aborted) return Promise.resolve(undefined);
  return new Promise((resolve) => {
    const onAbort = () => resolve(undefined);
    signal.addEventListener('abort', onAbort, { once: true });
    void flight.landed.then((entry) => {
      signal.removeEventListener('abort', onAbort);
      resolve(entry);
    });
  });
}

/**
 * Each change notification drops the answers that read what it names (`tagsOf` reads its payload), or
 * everything; while the notifications are down the store is not used.
 */
export function followChanges(
  store: ReturnType<typeof createResponseStore>,
  feed: ChangeFeed,
  channel: string,
  tagsOf: (payload: string) => readonly string[] | 'all',
): void {
  store.setAvailable(feed.up);
  store.followWith(() => feed.sync(channel, CATCH_UP_TIMEOUT_MS));
  feed.on(channel, (payload) => {
    const tags = tagsOf(payload);
    if (tags === 'all') store.clear();
    else store.invalidateTags(tags);
  });
  feed.onState((up) => store.setAvailable(up));
}

/** A writer's wait for its own change to come back; past it, this instance empties its store instead. */
const CATCH_UP_TIMEOUT_MS = 1_000;

import { createHash, randomUUID } from 'node:crypto';
import { useResponseCache, type Cache } from '@graphql-yoga/plugin-response-cache';
import { getOperationAST, isObjectType, OperationTypeNode, type ExecutionResult, type GraphQLSchema } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { LRUCache } from 'lru-cache';
import { Counter, Gauge, type Registry } from 'prom-client';
import type { ChangeFeed } from '../platform/notifications.ts';
import { requestContext } from '../platform/request-context.ts';
import type { GraphQLContext } from './context.ts';

/** Fields whose answer is the same for every caller, by type: `{ Product: ['id', 'name'] }`. */
export type PublicFields = Readonly<Record<string, readonly string[]>>;

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
const UNCACHEABLE = 'uncacheable:';

/** A hit as Yoga serialises it (it calls a result's own `stringify`): the stored body, not another walk. */
const storedAnswer = ({ json, http }: Entry): ExecutionResult =>
  ({ stringify: () => json, ...(http ? { extensions: { http } } : {}) }) as ExecutionResult;

/** The body Yoga would send for `result`: `extensions.http` becomes headers, an empty `extensions` goes. */
function body(result: ExecutionResult): { json: string; http: unknown } {
  const { extensions, ...rest } = result;
  const { http, ...others } = (extensions ?? {}) as Record<string, unknown>;
  return { json: JSON.stringify(Object.keys(others).length ? { ...rest, extensions: others } : rest), http };
}

export function createResponseStore(options: { maxEntries: number; maxBytes: number; ttlMs: number; registry: Registry }): ResponseStore {
  const { registry } = options;
  const counter = (name: string, help: string) => new Counter({ name, help, registers: [registry] });
  const hits = counter('graphql_response_cache_hits_total', 'GraphQL queries answered from the response cache.');
  const misses = counter('graphql_response_cache_misses_total', 'GraphQL queries executed while the response cache was available.');
  const evictions = counter('graphql_response_cache_evictions_total', 'Answers dropped to stay within the entry and byte bounds.');
  const refused = counter(
    'graphql_response_cache_admissions_refused_total',
    'Answers not kept: asked for the first time while the cache was full (see the doorkeeper).',
  );
  const invalidations = counter('graphql_response_cache_invalidations_total', 'Times the whole response cache was emptied (a write, or the change notifications lost or back).');
  const entries = new LRUCache<string, Entry>({
    max: options.maxEntries,
    maxSize: options.maxBytes,
    sizeCalculation: (entry) => entry.bytes,
    ttl: options.ttlMs,
    dispose: (_value, _key, reason) => {
      if (reason === 'evict') evictions.inc();
    },
  });
  new Gauge({ name: 'graphql_response_cache_entries', help: 'Answers held by the response cache.', registers: [registry], collect() {
    this.set(entries.size);
  } });
  new Gauge({ name: 'graphql_response_cache_bytes', help: 'Bytes of JSON held by the response cache.', registers: [registry], collect() {
    this.set(entries.calculatedSize);
  } });

  // An answer computed across a change must not be kept: each miss notes the generation it began
  // in, and only an answer whose generation is still current is stored. A second miss on the same
  // key keeps the older note, so concurrent executions err towards not caching.
  let generation = 0;
  const startedIn = new LRUCache<string, number>({ max: Math.max(1_000, options.maxEntries) });
  // TinyLFU's doorkeeper: the keys asked for once lately. A full cache admits only an answer asked for
  // again, so a flood of one-off queries (unique variables) cannot evict the answers that repeat. Room
  // that is free is taken at once: filling it evicts nothing, and an emptied cache warms as fast as before.
  // The plugin looks a request's key up twice (early, then again at execution): a sighting is a request.
  const asked = new LRUCache<string, { by: string | undefined; again: boolean }>({ max: Math.max(1_000, options.maxEntries) });
  const hasRoomFor = (bytes: number) => entries.size < options.maxEntries && entries.calculatedSize + bytes <= options.maxBytes;
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

// Marks a result's data as already clean for @envelop/response-cache, whose walk over it returns at
// once for an object with a prototype of its own. JSON output is unchanged.
const CLEAN = Object.freeze(Object.create(null));

/**
 * The response cache plugin rewrites every query to select `__typename` and `id` everywhere, then walks
 * the result to strip them and collect entities: an entity-invalidation feature this cache does not use
 * (every change empties it), at a cost that doubles with each nested list (9.3.1 walks arrays twice).
 * This runs the document as the client sent it instead, and hands back data the walk skips. Which fields
 * may be shared is still decided on the rewritten document, by schema coordinate, before execution.
 */
function useOriginalDocument(): Plugin {
  return {
    onExecute({ args, executeFn, setExecuteFn }) {
      const document = args.document;
      setExecuteFn((rewritten) => {
        const done = <R,>(result: R): R => {
          if (result && typeof result === 'object' && 'data' in result && result.data && typeof result.data === 'object') {
            result.data = Object.setPrototypeOf({ ...result.data }, CLEAN);
          }
          return result;
        };
        const result = executeFn({ ...rewritten, document });
        return result instanceof Promise ? result.then(done) : done(result);
      });
    },
  };
}

/** Each change notification empties the store; while the notifications are down the store is not used. */
export function followChanges(store: ResponseStore, feed: ChangeFeed, channel: string): void {
  store.setAvailable(feed.up);
  feed.on(channel, () => store.clear());
  feed.onState((up) => store.setAvailable(up));
}

/**
 * Time to live per schema coordinate: 0 (never cached) for every field not declared public, so a
 * per-caller field added later is private until a module says otherwise. The query root itself
 * holds no data: its fields decide.
 */
export function privateCoordinates(schema: GraphQLSchema, publicFields: readonly PublicFields[]): Record<string, number> {
  const allowed = new Set(publicFields.flatMap((fields) => Object.entries(fields).flatMap(([type, names]) => names.map((n) => `${type}.${n}`))));
  const queryType = schema.getQueryType()?.name;
  const ttls: Record<string, number> = { 'Query.__schema': 0, 'Query.__type': 0 };
  for (const type of Object.values(schema.getTypeMap())) {
    if (!isObjectType(type) || type.name.startsWith('__')) continue;
    const names = Object.keys(type.getFields());
    const privateNames = names.filter((name) => !allowed.has(`${type.name}.${name}`));
    for (const name of privateNames) ttls[`${type.name}.${name}`] = 0;
    if (type.name !== queryType && privateNames.length === names.length) ttls[type.name] = 0;
  }
  return ttls;
}

/**
 * Yoga's response cache over the shared store. Requests reach Yoga authenticated; the cache key holds
 * the caller's scopes, so an answer is only served to a caller allowed exactly what its first caller
 * was (refusals carry errors and are never stored). Mutations are never stored and empty this
 * instance's store when they finish, so a writer reads its own write before the notification is back.
 */
export function useSharedResponseCache(store: ResponseStore, schema: GraphQLSchema, publicFields: readonly PublicFields[]): Plugin[] {
  const ttlPerSchemaCoordinate = privateCoordinates(schema, publicFields);
  return [
    useOriginalDocument(),
    useResponseCache<GraphQLContext>({
      cache: store,
      session: (_request, context) => [...context.session.scopes].sort().join(' '),
      enabled: () => store.available,
      ttlPerSchemaCoordinate,
      ignoredTypes: Object.keys(ttlPerSchemaCoordinate).filter((coordinate) => !coordinate.includes('.')),
      invalidateViaMutation: false,
      includeExtensionMetadata: false,
      buildResponseCacheKey: ({ documentString, variableValues, operationName, sessionId }) => {
        let text: string;
        try {
          text = JSON.stringify([sessionId, operationName ?? null, documentString, variableValues ?? null]);
        } catch {
          return `${UNCACHEABLE}${randomUUID()}`;
        }
        return createHash('sha256').update(text).digest('base64url');
      },
    }),
    {
      onExecute({ args }) {
        if (getOperationAST(args.document, args.operationName)?.operation === OperationTypeNode.MUTATION) {
          return { onExecuteDone: () => store.clear() };
        }
        if (store.available) store.countMiss();
        return undefined;
      },
    },
  ];
}

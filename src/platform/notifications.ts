import { randomUUID } from 'node:crypto';
import pg from 'pg';
import type { Logger } from './logger.ts';
import { setLoopAwareTimeout } from './loop-timers.ts';

/**
 * PostgreSQL notifications on a set of channels. `up` is true only while the instance is surely
 * listening: whoever caches on the strength of notifications serves nothing from its cache while
 * it is false, and starts empty when it turns true again (anything may have changed meanwhile).
 */
export interface ChangeFeed {
  readonly up: boolean;
  /** `payload` is what the notifier sent ('' from the older triggers); a barrier's own payloads never reach listeners. */
  on(channel: string, listener: (payload: string) => void): void;
  /**
   * Resolves once every notification committed before the call has reached this instance's listeners
   * (PostgreSQL delivers in commit order): a writer then reads its own write. False when it could not
   * tell within `timeoutMs` (the feed is down or slow); the caller must then assume anything changed.
   */
  sync(channel: string, timeoutMs: number): Promise<boolean>;
  /** Called with every change of `up`. */
  onState(listener: (up: boolean) => void): void;
  close(): Promise<void>;
}

export interface ListenOptions {
  /**
   * How often the listening connection is checked; a check unanswered for as long counts as a lost connection.
   * Counted in time the event loop was free (loop-timers.ts): a loop too busy to read the answer loses nothing.
   */
  heartbeatMs: number;
  logger: Logger;
}

/** A barrier's payload prefix: no change feed's payload starts so. */
const BARRIER = '#sync:';

function createFeedState(logger: Logger, send: (channel: string, payload: string) => Promise<unknown>) {
  const listeners = new Map<string, Set<(payload: string) => void>>();
  const barriers = new Map<string, () => void>();
  const stateListeners = new Set<(up: boolean) => void>();
  let up = false;
  const notifyState = (next: boolean) => {
    for (const listener of stateListeners) listener(next);
  };
  const on = (channel: string, listener: (payload: string) => void) => {
    let set = listeners.get(channel);
    if (!set) listeners.set(channel, (set = new Set()));
    set.add(listener);
  };
  const onState = (listener: (next: boolean) => void) => void stateListeners.add(listener);
  const setUp = (next: boolean, quiet = false) => {
    if (next === up) return;
    up = next;
    if (quiet) return notifyState(next);
    if (next) logger.info('change notifications listening');
    else logger.warn('change notifications lost: caches bypassed until they are back');
    notifyState(next);
  };
  return {
    get up() {
      return up;
    },
    notify(channel: string, payload: string) {
      if (payload.startsWith(BARRIER)) return barriers.get(payload)?.();
      for (const listener of listeners.get(channel) ?? []) listener(payload);
    },
    setUp,
    /** The public face, closed by `close` (after which it reports down, without a warning). */
    feed(close: () => Promise<void>): ChangeFeed {
      return {
        get up() {
          return up;
        },
        on,
        onState,
        sync(channel, timeoutMs) {
          if (!up) return Promise.resolve(false);
          const payload = `${BARRIER}${randomUUID()}`;
          return new Promise<boolean>((resolve) => {
            const done = (reached: boolean) => {
              cancel();
              barriers.delete(payload);
              resolve(reached);
            };
            const cancel = setLoopAwareTimeout(timeoutMs, () => done(false));
            barriers.set(payload, () => done(true));
            send(channel, payload).catch(() => done(false));
          });
        },
        async close() {
          setUp(false, true);
          await close();
        },
      };
    },
  };
}

const MAX_BACKOFF_MS = 2_000;

/** One connection of its own (never a pooled one), re-opened with backoff whenever it is lost. */
export function listenPostgres(url: string, channels: readonly string[], options: ListenOptions): ChangeFeed {
  let client: pg.Client | undefined;
  // Sent on the listening connection itself: after it, in the queue, comes nothing committed before.
  const state = createFeedState(options.logger, (channel, payload) =>
    client ? client.query('SELECT pg_notify($1, $2)', [channel, payload]) : Promise.reject(new Error('not listening')),
  );
  let closed = false;
  let backoffMs = 100;
  let stopHeartbeat = () => {};
  let retry: NodeJS.Timeout | undefined;

  const drop = (current: pg.Client) => {
    if (client !== current) return;
    client = undefined;
    stopHeartbeat();
    state.setUp(false);
    current.removeAllListeners('notification');
    current.on('error', () => {});
    void current.end().catch(() => {});
    if (!closed) {
      // connect() catches its own failures: it drops the client and schedules the next try.
      retry = setTimeout(() => void connect(), backoffMs);
      backoffMs = Math.min(backoffMs * 2, MAX_BACKOFF_MS);
    }
  };

  const connect = async () => {
    if (closed) return;
    // No query_timeout: pg's counts wall-clock time. The heartbeat bounds every statement on this connection.
    const current = new pg.Client({
      connectionString: url,
      connectionTimeoutMillis: options.heartbeatMs * 2,
      keepAlive: true,
    });
    client = current;
    current.on('error', () => drop(current));
    current.on('end', () => drop(current));
    current.on('notification', (message) => state.notify(message.channel, message.payload ?? ''));
    const stopWaiting = setLoopAwareTimeout(options.heartbeatMs * 2, () => drop(current), { unref: true });
    try {
      await current.connect();
      for (const channel of channels) await current.query(`LISTEN ${pg.escapeIdentifier(channel)}`);
    } catch {
      drop(current);
      return;
    } finally {
      stopWaiting();
    }
    if (client !== current || closed) return;
    backoffMs = 100;
    heartbeat(current);
    state.setUp(true);
  };

  // A connection can die without a word (a partition, a hung server): a check still unanswered when the next
  // is due, in time the event loop was free to read its answer, drops it.
  const heartbeat = (current: pg.Client) => {
    let checking = false;
    const beat = () => {
      if (checking) return drop(current);
      checking = true;
      current.query('SELECT 1').then(
        () => void (checking = false),
        () => drop(current),
      );
      stopHeartbeat = setLoopAwareTimeout(options.heartbeatMs, beat, { unref: true });
    };
    stopHeartbeat = setLoopAwareTimeout(options.heartbeatMs, beat, { unref: true });
  };

  void connect();
  return state.feed(async () => {
    closed = true;
    clearTimeout(retry);
    stopHeartbeat();
    const current = client;
    client = undefined;
    await current?.end().catch(() => {});
  });
}

/** The embedded database is this process's alone: its notifications cannot be lost, only closed. */
export async function listenPGlite(
  pglite: { listen(channel: string, callback: (payload: string) => void): Promise<() => Promise<void>> },
  channels: readonly string[],
  logger: Logger,
  /** Through the database's one (serialised) connection: never inside another caller's transaction. */
  send: (channel: string, payload: string) => Promise<unknown>,
): Promise<ChangeFeed> {
  const state = createFeedState(logger, send);
  const unlisten = await Promise.all(
    channels.map((channel) => pglite.listen(channel, (payload) => state.notify(channel, payload))),
  );
  state.setUp(true);
  return state.feed(async () => {
    await Promise.all(unlisten.map((stop) => stop().catch(() => {})));
  });
}

import pg from 'pg';
import { setLoopAwareTimeout } from './loop-timers.ts';

// The read replicas' monitor (replicas.ts): its connections and its timers.

/** A connection of its own to one server, for the monitor's statements, re-opened when lost. */
export function monitorConnection(url: string, timeoutMs: number) {
  let client: pg.Client | undefined;
  const drop = () => {
    const current = client;
    client = undefined;
    current?.removeAllListeners('error');
    current?.on('error', () => {});
    void current?.end().catch(() => {});
  };
  return {
    /** One row, or a rejection within timeoutMs of free event-loop time (a hung server must not hold it). */
    async row<T>(text: string): Promise<T> {
      if (!client) {
        const fresh = new pg.Client({ connectionString: url, connectionTimeoutMillis: timeoutMs * 5, keepAlive: true });
        fresh.on('error', () => client === fresh && drop());
        client = fresh;
        await fresh.connect().catch((err: unknown) => {
          if (client === fresh) drop();
          throw err;
        });
      }
      const current = client;
      return new Promise<T>((resolve, reject) => {
        const cancel = setLoopAwareTimeout(timeoutMs, () => {
          if (client === current) drop();
          reject(new Error('monitor statement unanswered'));
        });
        current.query(text).then(
          (result) => (cancel(), resolve(result.rows[0] as T)),
          (err: unknown) => {
            cancel();
            if (client === current) drop();
            reject(err instanceof Error ? err : new Error(String(err)));
          },
        );
      });
    },
    close: drop,
  };
}

export type MonitorConnection = ReturnType<typeof monitorConnection>;

/** Runs poll now and again pollMs after each run ends, until the returned function is called. */
export function repeat(poll: () => Promise<void>, pollMs: number): () => void {
  let stopped = false;
  let cancel = () => {};
  const run = async () => {
    await poll();
    if (!stopped) cancel = setLoopAwareTimeout(pollMs, () => void run(), { unref: true });
  };
  void run();
  return () => {
    stopped = true;
    cancel();
  };
}

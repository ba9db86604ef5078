import pg from 'pg';
import { assertStatementMayRun, requestSignal } from './abort.ts';
import { preparedStatementName } from './prepared.ts';

type QueryClient = Pick<pg.PoolClient, 'query' | 'release'>;
type ActiveClient = pg.PoolClient & { activeQuery?: unknown; connectionParameters?: pg.ClientConfig };

/**
 * Asks the server to cancel the statement a client is running, over a
 * connection of its own (PostgreSQL's CancelRequest): it works even when every
 * pooled connection is busy. The statement then fails with query_canceled.
 */
function cancelRunningStatement(client: ActiveClient): void {
  if (!client.activeQuery) return;
  const canceller = new pg.Client(client.connectionParameters) as pg.Client & {
    connection: NodeJS.EventEmitter;
    cancel(client: pg.Client, query: unknown): void;
  };
  // The cancel connection is fire-and-forget; its failure must not reach the process.
  canceller.connection.on('error', () => {});
  canceller.cancel(client, client.activeQuery);
}

/**
 * The pg pool as Kysely's PostgresDialect uses it, with two changes: registered
 * SQL texts go out as named prepared statements (prepared.ts), and the
 * statements of an aborted request are refused before they start or cancelled
 * while they run, so a request cut off by its deadline frees its connection.
 */
export function createPoolAdapter(pool: pg.Pool) {
  // Kysely keys its connection objects by client: hand out one wrapper per pg client.
  const wrappers = new WeakMap<pg.PoolClient, QueryClient>();
  function wrap(client: pg.PoolClient): QueryClient {
    return {
      query: ((text: string, values?: unknown[]) => {
        assertStatementMayRun(text);
        const name = typeof text === 'string' ? preparedStatementName(text) : undefined;
        const running = name ? client.query({ name, text, values }) : client.query(text, values);
        const signal = requestSignal();
        if (signal) {
          const cancel = () => cancelRunningStatement(client);
          signal.addEventListener('abort', cancel, { once: true });
          running.then(
            () => signal.removeEventListener('abort', cancel),
            () => signal.removeEventListener('abort', cancel),
          );
        }
        return running;
      }) as pg.PoolClient['query'],
      // pg-pool replaces release() on every checkout: look it up at call time.
      release: (err?: Error | boolean) => client.release(err),
    };
  }
  return {
    async connect(): Promise<QueryClient> {
      const client = await pool.connect();
      let wrapper = wrappers.get(client);
      if (!wrapper) wrappers.set(client, (wrapper = wrap(client)));
      return wrapper;
    },
    end: () => pool.end(),
  };
}

import pg from 'pg';
import { assertStatementMayRun, requestSignal } from './abort.ts';
import { preparedStatementName } from './prepared.ts';

type QueryClient = Pick<pg.PoolClient, 'query' | 'release'>;
type BackendClient = pg.PoolClient & { processID: number; secretKey: number; host: string; port: number };
type CancelConnection = NodeJS.EventEmitter & {
  connect(portOrPath: number | string, host?: string): void;
  cancel(pid: number, key: number): void;
};

/** CancelRequest on a connection of its own, so it works with every pooled connection busy (pg's own cancel is deprecated). */
function sendCancelRequest(client: BackendClient): void {
  const connection = new (pg as unknown as { Connection: new () => CancelConnection }).Connection();
  // Fire and forget: a failed cancel only leaves the statement to its timeout.
  connection.on('error', () => {});
  connection.on('connect', () => connection.cancel(client.processID, client.secretKey));
  // A host that is a directory names a Unix socket, as in pg's own connect.
  if (client.host.startsWith('/')) connection.connect(`${client.host}/.s.PGSQL.${client.port}`);
  else connection.connect(client.port, client.host);
}

/** pg's pool for Kysely, plus named prepared statements and an aborted request's statements refused or cancelled. */
export function createPoolAdapter(pool: pg.Pool) {
  // Kysely keys its connection objects by client: hand out one wrapper per pg client.
  const wrappers = new WeakMap<pg.PoolClient, QueryClient>();
  function wrap(client: pg.PoolClient): QueryClient {
    // A cancel can land after its statement ended: a backend sent one is never reused, lest it cancel another's.
    let cancelSent = false;
    return {
      query: ((text: string, values?: unknown[]) => {
        assertStatementMayRun(text);
        const name = typeof text === 'string' ? preparedStatementName(text) : undefined;
        const running = name ? client.query({ name, text, values }) : client.query(text, values);
        const signal = requestSignal();
        if (signal) {
          const cancel = () => {
            cancelSent = true;
            sendCancelRequest(client as BackendClient);
          };
          signal.addEventListener('abort', cancel, { once: true });
          const done = () => signal.removeEventListener('abort', cancel);
          running.then(done, done);
        }
        return running;
      }) as pg.PoolClient['query'],
      // pg-pool replaces release() on every checkout: look it up at call time. release(true) closes the connection.
      release: (err?: Error | boolean) => client.release(err ?? (cancelSent || undefined)),
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

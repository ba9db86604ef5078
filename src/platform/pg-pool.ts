import pg from 'pg';
import { assertStatementMayRun, requestSignal } from './abort.ts';
import { withinLoopAwareTimeout } from './loop-timers.ts';
import { preparedStatementName } from './prepared.ts';
import { currentTenant, TENANT_SETTING } from './tenancy.ts';
import { queryAsTenant } from './tenant-query.ts';

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

export interface PoolTimeouts {
  /** Waiting for a pooled connection (or a new one), in time the event loop was free. */
  connectMs: number;
  /** Waiting for a statement's answer, likewise; undefined: no bound (migrations). */
  readMs: number | undefined;
}

// pg's own timers count wall-clock time, so a loop blocked past them fails requests whose connection or rows
// had arrived meanwhile (503 for a database that answered). These bounds count only time the loop was free
// (loop-timers.ts); pg's are left as a distant backstop (db.ts).
const CONNECT_TIMEOUT_MESSAGE = 'timeout exceeded when trying to connect';
const READ_TIMEOUT_MESSAGE = 'Query read timeout';

// Kysely's transaction statements: inside one the tenant set before BEGIN holds, and nothing may precede
// COMMIT or ROLLBACK (in a failed transaction the prefix would fail, and the ROLLBACK with it).
const OPENS_TRANSACTION = /^\s*(begin|start transaction)\b/i;
const ENDS_TRANSACTION = /^\s*(commit|rollback|end|abort)\s*;?\s*$/i;
// `start transaction isolation level …` must be the transaction's first statement ("SET TRANSACTION ISOLATION
// LEVEL must be called before any query"): the tenant is set right after it, in a round trip of its own.
const OPENS_WITH_CHARACTERISTICS = /^\s*start transaction\s+\S/i;
const SET_TENANT_IN_TRANSACTION = `SELECT set_config('${TENANT_SETTING}', $1, true)`;

/**
 * pg's pool for Kysely, plus named prepared statements, an aborted request's statements refused or cancelled,
 * and connect and read timeouts that a busy event loop does not trip.
 */
export function createPoolAdapter(pool: pg.Pool, timeouts: PoolTimeouts, preparedStatements = true) {
  // Kysely keys its connection objects by client: hand out one wrapper per pg client.
  const wrappers = new WeakMap<pg.PoolClient, QueryClient>();
  function wrap(client: pg.PoolClient): QueryClient {
    // A cancel can land after its statement ended: a backend sent one is never reused, lest it cancel another's.
    let cancelSent = false;
    // A statement left unanswered: the connection is closed on release, and nothing more is sent on it.
    let unanswered = false;
    let inTransaction = false;
    function send(text: string, values: unknown[] | undefined) {
      // Unnamed when a pooler between may hand each statement to another server connection (PgBouncer < 1.21).
      const name = preparedStatements ? preparedStatementName(text) : undefined;
      const tenant = inTransaction ? undefined : currentTenant();
      if (OPENS_TRANSACTION.test(text)) inTransaction = true;
      else if (ENDS_TRANSACTION.test(text)) inTransaction = false;
      if (tenant !== undefined && OPENS_WITH_CHARACTERISTICS.test(text)) {
        return client.query(text, values).then(async (result) => {
          await client.query(SET_TENANT_IN_TRANSACTION, [tenant]);
          return result;
        });
      }
      if (tenant !== undefined) return queryAsTenant(client, { name, text, values }, tenant, preparedStatements);
      return name ? client.query({ name, text, values }) : client.query(text, values);
    }
    return {
      query: ((text: string, values?: unknown[]) => {
        assertStatementMayRun(text);
        if (unanswered) return Promise.reject(new Error(READ_TIMEOUT_MESSAGE));
        const sent = send(text, values);
        const running =
          timeouts.readMs === undefined
            ? sent
            : withinLoopAwareTimeout(
                sent,
                timeouts.readMs,
                () => ((unanswered = true), new Error(READ_TIMEOUT_MESSAGE)),
                (late) => void late.catch(() => {}),
              );
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
      // A connection given back inside a transaction is closed: the next caller must not run in it.
      release: (err?: Error | boolean) =>
        client.release(err ?? (cancelSent || unanswered || inTransaction || undefined)),
    };
  }
  return {
    async connect(): Promise<QueryClient> {
      const client = await withinLoopAwareTimeout(
        pool.connect(),
        timeouts.connectMs,
        () => new Error(CONNECT_TIMEOUT_MESSAGE),
        // It came too late for this request: the pool has it back at once.
        (late) =>
          void late.then(
            (c) => c.release(),
            () => {},
          ),
      );
      let wrapper = wrappers.get(client);
      if (!wrapper) wrappers.set(client, (wrapper = wrap(client)));
      return wrapper;
    },
    end: () => pool.end(),
  };
}

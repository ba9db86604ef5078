import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.ts';
import { adminAndUserTokens, mutate, productInput } from '../support/catalog-writes.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy.ts';

// Issue 30, item 2: an event loop blocked past the pool's connect timeout, the client-side read timeout and the
// listener's heartbeat is not a lost database: what arrived meanwhile is read before any of them counts as
// expired. The pool and the listening connection are PostgreSQL's; the embedded database has neither.
const reason = 'the pool and the LISTEN connection need a TCP PostgreSQL (set DATABASE_URL)';

const LOST = 'change notifications lost: caches bypassed until they are back';
const SETTINGS = {
  DATABASE_POOL_SIZE: '2',
  DATABASE_CONNECT_TIMEOUT_MS: '600',
  // The client-side read timeout is 250 ms after it: 1,250 ms.
  DATABASE_STATEMENT_TIMEOUT_MS: '1000',
  CACHE_LISTENER_HEARTBEAT_MS: '100',
};
/** Longer than each of the settings above. */
const BLOCK_MS = 2_500;

/** The whole process stops: no timer runs and no socket is read meanwhile. */
function blockEventLoop(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    // busy, as a large answer being serialised keeps it
  }
}

describe.skipIf(!process.env.DATABASE_URL)(`a busy event loop (${reason})`, () => {
  let database: TestDatabase;
  let proxy: TcpProxy;
  let t: TestApp;
  let token: string;
  let productId: string;
  /** Runs once, right after the listener's next heartbeat check has been passed on to PostgreSQL. */
  let atNextHeartbeat: (() => void) | undefined;

  beforeAll(async () => {
    database = await createTestDatabase();
    const url = new URL(database.url!);
    // Only the listening connection goes through the proxy, which sees each heartbeat check as it is sent.
    proxy = await startTcpProxy(
      { host: url.hostname, port: Number(url.port || 5432) },
      {
        onClientData: (chunk) => {
          if (!chunk.includes('SELECT 1')) return;
          const run = atNextHeartbeat;
          atNextHeartbeat = undefined;
          run?.();
        },
      },
    );
    t = await startTestApp({ database, env: { ...SETTINGS, DATABASE_LISTEN_URL: proxy.proxiedUrl(database.url!) } });
    const tokens = await adminAndUserTokens(t);
    token = tokens.user;
    const created = await mutate(
      t,
      tokens.admin,
      'mutation ($i: CreateProductInput!) { createProduct(input: $i) { id } }',
      {
        i: productInput('busy'),
      },
    );
    productId = created.createProduct.id;
  });
  afterAll(async () => {
    await t?.close();
    await proxy?.close();
    await database?.drop();
  });

  it('requests waiting for a pooled connection or for their rows answer 200, and the listener is not lost', async () => {
    const states: boolean[] = [];
    t.app.changes!.onState((up) => states.push(up));
    const before = t.logs.lines.length;
    // The reads wait at the server on a lock held by another session; both pooled connections are taken.
    const locker = new pg.Client({ connectionString: database.url });
    await locker.connect();
    try {
      await locker.query('BEGIN');
      await locker.query('LOCK TABLE products IN ACCESS EXCLUSIVE MODE');
      // Six distinct requests (no cache shares them): two read and wait on the lock, four wait for the pool.
      const requests = Array.from({ length: 6 }, (_, i) =>
        t.graphql(`query Busy${i} { product(id: "${productId}") { id name } }`, { token }),
      );
      await new Promise((r) => setTimeout(r, 150));
      const blocked = new Promise<void>((resolve) => {
        atNextHeartbeat = () => {
          // The lock goes at once, so the rows, the freed connections and the heartbeat's answer all arrive
          // while the loop is blocked, past every timeout above.
          void locker.query('COMMIT');
          blockEventLoop(BLOCK_MS);
          resolve();
        };
      });
      await blocked;
      const answers = await Promise.all(requests);
      // A few heartbeats later still: the listener was never declared lost, so no cache was emptied.
      await new Promise((r) => setTimeout(r, 500));
      const messages = t.logs.lines.slice(before).map((l) => JSON.parse(l).msg as string);
      expect({
        statuses: answers.map((a) => a.status),
        products: answers.map((a) => a.body.data?.product?.id),
        listenerStates: states,
        lostOrUnavailable: messages.filter((m) => m === LOST || m === 'database unavailable'),
      }).toEqual({
        statuses: [200, 200, 200, 200, 200, 200],
        products: Array(6).fill(productId),
        listenerStates: [],
        lostOrUnavailable: [],
      });
      expect(t.app.changes!.up).toBe(true);
    } finally {
      await locker.end();
    }
  });
});

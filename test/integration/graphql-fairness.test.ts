import http from 'node:http';
import net from 'node:net';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedCatalog } from '../../db/seeds/catalog.ts';
import { pushDocuments, sha256Hex } from '../../src/modules/documents/service.ts';
import { serviceSchema } from '../../src/modules/index.ts';
import { DEFAULT_TENANT_ID, withTenant } from '../../src/platform/tenancy.ts';
import { startTestApp, type TestApp } from '../support/app.ts';
import { createTestDatabase } from '../support/database.ts';
import { postGraphQL, rawGraphQL, tokenFor } from '../support/edge.ts';
import { request } from '../support/raw-http.ts';

// The embedded database has one connection: a lock held by the test would block
// the token lookup too, so these run on PostgreSQL, where a test can hold a lock
// on the catalogue from a connection of its own while tokens still resolve.
const onPostgres = Boolean(process.env.DATABASE_URL);

const PAGE = '{ products(first: 5) { data { id name } } }';
const METRICS_TOKEN = 'graphql-fairness-metrics-token-0123456789';
// Distinct queries: identical ones in flight together execute once (the response cache's single flight).
const pageOf = (first: number) => `{ products(first: ${first}) { data { id name } } }`;

/** Holds an exclusive lock on products from a connection of the test's own, until released. */
async function lockProducts(url: string) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  await client.query('BEGIN');
  await client.query('LOCK TABLE products IN ACCESS EXCLUSIVE MODE');
  return {
    async release() {
      await client.query('COMMIT');
      await client.end();
    },
    /** Backends of this database waiting for the lock (the service's blocked statements). */
    async waiting(): Promise<number> {
      // Statistics views are snapshotted once per transaction, and this one stays open.
      await client.query('SELECT pg_stat_clear_snapshot()');
      const { rows } = await client.query<{ n: string }>(
        `SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND pid <> pg_backend_pid()`,
      );
      return Number(rows[0]!.n);
    },
  };
}

async function until(check: () => Promise<boolean>, timeoutMs = 5_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('condition not reached in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe.skipIf(!onPostgres)('per-token fairness (PostgreSQL)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ env: { GRAPHQL_MAX_IN_FLIGHT_PER_TOKEN: '2' } });
    await seedCatalog(t.app.database.db, {
      products: 10,
      seed: 3,
      shape: { steps: 1, components: 1, customisations: 1 },
    });
  });
  afterAll(() => t?.close());

  it('a token with its executions in flight gets 429 with Retry-After; other tokens are served', async () => {
    const busy = await tokenFor(t);
    const other = await tokenFor(t);
    const lock = await lockProducts(t.database.url!);
    let held: Promise<{ status: number }>[] = [];
    try {
      held = [postGraphQL(t, busy, { query: pageOf(1) }), postGraphQL(t, busy, { query: pageOf(2) })];
      await until(async () => (await lock.waiting()) === 2);
      const refused = await postGraphQL(t, busy, { query: '{ __typename }' });
      expect(refused.status).toBe(429);
      expect(refused.headers.get('retry-after')).toBe('1');
      expect(refused.body).toEqual({
        errors: [{ message: 'Too many requests in flight for this token.', extensions: { code: 'TOO_MANY_REQUESTS' } }],
      });
      const served = await postGraphQL(t, other, { query: '{ __typename }' });
      expect(served.status).toBe(200);
    } finally {
      await lock.release();
    }
    expect((await Promise.all(held)).map((r) => r.status)).toEqual([200, 200]);
    // The slots are given back when the responses end.
    expect((await postGraphQL(t, busy, { query: PAGE })).status).toBe(200);
  });
});

describe.skipIf(!onPostgres)('per-user fairness (PostgreSQL)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ env: { GRAPHQL_MAX_IN_FLIGHT_PER_TOKEN: '2', GRAPHQL_MAX_IN_FLIGHT_PER_USER: '3' } });
    await seedCatalog(t.app.database.db, {
      products: 10,
      seed: 3,
      shape: { steps: 1, components: 1, customisations: 1 },
    });
  });
  afterAll(() => t?.close());

  it("a user's tokens together get 429 past the per-user cap, each under its own; other users are served", async () => {
    const user = await t.createUser();
    const first = await t.login(user.email, user.password);
    const second = await t.login(user.email, user.password);
    const other = await tokenFor(t);
    const lock = await lockProducts(t.database.url!);
    let held: Promise<{ status: number }>[] = [];
    try {
      held = [pageOf(1), pageOf(2)].map((query) => postGraphQL(t, first, { query }));
      held.push(postGraphQL(t, second, { query: pageOf(3) }));
      await until(async () => (await lock.waiting()) === 3);
      // The second token has one request in flight of its 2, but the user has 3 of 3.
      const refused = await postGraphQL(t, second, { query: '{ __typename }' });
      expect(refused.status).toBe(429);
      expect(refused.headers.get('retry-after')).toBe('1');
      expect(refused.body).toEqual({
        errors: [{ message: 'Too many requests in flight for this user.', extensions: { code: 'TOO_MANY_REQUESTS' } }],
      });
      expect((await postGraphQL(t, other, { query: '{ __typename }' })).status).toBe(200);
    } finally {
      await lock.release();
    }
    expect((await Promise.all(held)).map((r) => r.status)).toEqual([200, 200, 200]);
    expect((await postGraphQL(t, second, { query: PAGE })).status).toBe(200);
  });
});

describe('per-token fairness with keep-alive', () => {
  it('a client sending one request at a time on one connection is never refused, even at a limit of 1', async () => {
    const t = await startTestApp({ env: { GRAPHQL_MAX_IN_FLIGHT_PER_TOKEN: '1' } });
    try {
      const token = await tokenFor(t);
      const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
      const statuses: number[] = [];
      for (let i = 0; i < 20; i++) {
        statuses.push(
          (await request(t.url, '/graphql', { method: 'POST', agent, token, body: { query: '{ __typename }' } }))
            .status,
        );
      }
      agent.destroy();
      expect(statuses).toEqual(Array(20).fill(200));
    } finally {
      await t.close();
    }
  });
});

describe('per-token fairness when clients leave', () => {
  it('a client gone during authentication gives its slot back', async () => {
    const t = await startTestApp({ env: { GRAPHQL_MAX_IN_FLIGHT_PER_TOKEN: '1' } });
    try {
      const token = await tokenFor(t);
      const body = JSON.stringify({ query: '{ __typename }' });
      const url = new URL(t.url);
      for (let i = 0; i < 5; i++) {
        await new Promise<void>((resolve) => {
          const socket = net.connect(Number(url.port), url.hostname, () => {
            socket.end(
              `POST /graphql HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\n` +
                `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
            );
            socket.destroy();
            resolve();
          });
        });
      }
      await new Promise((r) => setTimeout(r, 200));
      const res = await postGraphQL(t, token, { query: '{ __typename }' });
      expect(res.status).toBe(200);
    } finally {
      await t.close();
    }
  });
});

describe.skipIf(!onPostgres)('execution deadline (PostgreSQL)', () => {
  let t: TestApp;
  beforeAll(async () => {
    // A statement timeout far beyond the deadline: only the cancellation can end the blocked statement in time.
    t = await startTestApp({
      env: { GRAPHQL_EXECUTION_TIMEOUT_MS: '300', METRICS_TOKEN },
      database: await createTestDatabase({ statementTimeoutMs: 20_000 }),
    });
    await seedCatalog(t.app.database.db, {
      products: 10,
      seed: 3,
      shape: { steps: 1, components: 1, customisations: 1 },
    });
  });
  afterAll(async () => {
    await t?.close();
    await t?.database.drop();
  });

  it('answers 504 at the deadline and cancels the statement it was waiting on', async () => {
    const token = await tokenFor(t);
    const lock = await lockProducts(t.database.url!);
    try {
      const started = Date.now();
      const res = await postGraphQL(t, token, { query: PAGE });
      const tookMs = Date.now() - started;
      expect(res.status).toBe(504);
      expect(res.body).toEqual({
        errors: [
          {
            message: 'The operation took longer than 300 ms and was aborted.',
            extensions: { code: 'EXECUTION_TIMEOUT' },
          },
        ],
      });
      expect(tookMs).toBeGreaterThanOrEqual(300);
      // The blocked statement was cancelled, though its statement timeout (20 s) is far off.
      await until(async () => (await lock.waiting()) === 0, 2_000);
    } finally {
      await lock.release();
    }
    const again = await postGraphQL(t, token, { query: PAGE });
    expect(again.status).toBe(200);
    expect(again.body.data.products.data).toHaveLength(5);

    // A document by id, answered without Yoga (compiled-path.ts): the same deadline, the same cancel. Not the
    // text above, whose answer the response cache now holds.
    const trusted = pageOf(4);
    await withTenant(DEFAULT_TENANT_ID, () =>
      pushDocuments(t.app.database.db as never, { [sha256Hex(trusted)]: trusted }, serviceSchema(), t.config.graphql),
    );
    const byId = () =>
      rawGraphQL(t, {
        token,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ documentId: `sha256:${sha256Hex(trusted)}` }),
      });
    const compiledBefore = await compiledAnswers(t);
    const idLock = await lockProducts(t.database.url!);
    try {
      const res = await byId();
      expect(res.status).toBe(504);
      expect(res.body.errors[0].extensions).toEqual({ code: 'EXECUTION_TIMEOUT' });
      await until(async () => (await idLock.waiting()) === 0, 2_000);
    } finally {
      await idLock.release();
    }
    expect(await compiledAnswers(t)).toBe(compiledBefore + 1);
  });
});

async function compiledAnswers(t: TestApp): Promise<number> {
  const res = await fetch(`${t.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
  return Number(/^graphql_compiled_answers_total (\d+)/m.exec(await res.text())?.[1] ?? NaN);
}

import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedCatalog } from '../../db/seeds/catalog.ts';
import { loadConfig } from '../../src/config.ts';
import { createPostgresDatabase, type DatabaseHandle } from '../../src/platform/db.ts';
import { createLogger } from '../../src/platform/logger.ts';
import { startTestApp, UNCACHED, type TestApp } from '../support/app.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy.ts';

// Needs a PostgreSQL server to put a proxy in front of; the embedded database has
// no network to lose. CI runs the suite on PostgreSQL too (.ci/run).
const reason = 'database faults need a TCP PostgreSQL (set DATABASE_URL)';

const PRODUCTS = `query FaultProducts { products(first: 2) { data { id name } } }`;
const APP_NAME = `pcs-faults-${process.pid}`;
const LEAKY = /select|insert|from\s|ECONN|terminated|timeout|stack|\.ts:|SQLSTATE/i;

describe.skipIf(!process.env.DATABASE_URL)(`the database going away (${reason})`, () => {
  let direct: TestDatabase;
  let proxy: TcpProxy;
  let proxied: DatabaseHandle;
  let observer: pg.Client;
  let t: TestApp;
  let token: string;

  beforeAll(async () => {
    direct = await createTestDatabase();
    await seedCatalog(direct.handle.db, { products: 3, seed: 11 });
    const target = new URL(direct.url!);
    proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
    const url = new URL(proxy.proxiedUrl(direct.url!));
    // Named, so pg_stat_activity tells the app's connections from the test's own.
    url.searchParams.set('application_name', APP_NAME);
    // The service's own defaults, as an operator would run it.
    const config = loadConfig({ NODE_ENV: 'test' });
    proxied = createPostgresDatabase({
      databaseUrl: url.toString(),
      poolSize: 4,
      connectTimeoutMs: config.database.connectTimeoutMs,
      statementTimeoutMs: config.database.statementTimeoutMs,
      logger: createLogger('silent'),
    });
    t = await startTestApp({ database: { ...direct, handle: proxied }, env: UNCACHED });
    const user = await t.createUser();
    token = await t.login(user.email, user.password);
    observer = new pg.Client({ connectionString: direct.url });
    await observer.connect();
  });

  afterAll(async () => {
    await t?.close();
    await proxied?.close();
    await proxy?.close();
    await observer?.end();
    await direct?.drop();
  });

  async function serverSideConnections(): Promise<number> {
    const { rows } = await observer.query<{ n: string }>(
      'SELECT count(*) AS n FROM pg_stat_activity WHERE application_name = $1',
      [APP_NAME],
    );
    return Number(rows[0]!.n);
  }

  /** Polls until the check passes or the time is up; returns the last result. */
  async function eventually<T>(check: () => Promise<T>, ok: (v: T) => boolean, withinMs: number): Promise<T> {
    const until = Date.now() + withinMs;
    for (;;) {
      const value = await check();
      if (ok(value) || Date.now() > until) return value;
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  async function timedFetch(path: string, init: RequestInit = {}) {
    const started = Date.now();
    const res = await fetch(`${t.url}${path}`, init);
    const text = await res.text();
    return { res, text, ms: Date.now() - started };
  }

  const graphqlRequest = (): RequestInit => ({
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ query: PRODUCTS }),
  });

  async function expectUnavailable() {
    // Authentication itself reads the database: a token check that cannot run is a 503, not a 401.
    const gql = await timedFetch('/graphql', graphqlRequest());
    expect(gql.res.status).toBe(503);
    expect(gql.ms).toBeLessThan(3_000);
    expect(gql.res.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(JSON.parse(gql.text)).toEqual({
      errors: [{ message: 'Service temporarily unavailable.', extensions: { code: 'SERVICE_UNAVAILABLE' } }],
    });

    const logout = await timedFetch('/api/v1/logout', {
      method: 'POST',
      headers: { authorization: `Bearer ${token}` },
    });
    expect(logout.res.status).toBe(503);
    expect(logout.ms).toBeLessThan(3_000);
    expect(logout.res.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(JSON.parse(logout.text)).toEqual({ success: false, message: 'Service temporarily unavailable.' });

    const login = await timedFetch('/api/v1/login', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'someone@example.com', password: 'whatever-it-is' }),
    });
    expect(login.res.status).toBe(503);
    expect(login.ms).toBeLessThan(3_000);

    for (const r of [gql, logout, login]) expect(r.text).not.toMatch(LEAKY);

    const health = await timedFetch('/health');
    expect(health.res.status).toBe(200);
    const ready = await timedFetch('/ready');
    expect(ready.res.status).toBe(503);
    expect(ready.ms).toBeLessThan(3_000);
  }

  async function expectRecoveredWithoutLeaks() {
    const started = Date.now();
    const status = await eventually(
      async () => (await fetch(`${t.url}/graphql`, graphqlRequest())).status,
      (s) => s === 200,
      5_000,
    );
    expect(status).toBe(200);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect((await fetch(`${t.url}/ready`)).status).toBe(200);
    // Nothing checked out or queued, and the server holds exactly the connections the pool knows of.
    const stats = await eventually(
      async () => ({ ...proxied.poolStats!(), server: await serverSideConnections() }),
      (s) => s.waiting === 0 && s.total === s.idle && s.server === s.total,
      5_000,
    );
    expect(stats.waiting).toBe(0);
    expect(stats.total - stats.idle).toBe(0);
    expect(stats.total).toBeLessThanOrEqual(4);
    expect(stats.server).toBe(stats.total);
  }

  it('answers normally through the proxy', async () => {
    const res = await t.graphql(PRODUCTS, { token });
    expect(res.status).toBe(200);
    expect(res.body.data.products.data).toHaveLength(2);
    expect(proxied.poolStats!().total).toBeGreaterThan(0);
  });

  it('a cut connection: fast 503s, /health 200, /ready 503; service resumes by itself', async () => {
    await proxy.cut();
    await expectUnavailable();
    expect(t.logs.text).toContain('database unavailable');
    await proxy.restore();
    await expectRecoveredWithoutLeaks();
  });

  it('a black hole (nothing answers): 503s within 3 s on pooled and new connections alike', async () => {
    // Warm connections first, so the black hole swallows queries on open connections too.
    await Promise.all([1, 2, 3].map(() => t.graphql(PRODUCTS, { token })));
    expect(proxied.poolStats!().idle).toBeGreaterThan(0);
    proxy.blackHole();
    await expectUnavailable();
    await proxy.restore();
    await expectRecoveredWithoutLeaks();
  });

  it('a connection cut in the middle of a query: that request gets a 503 and the process lives on', async () => {
    await Promise.all([1, 2].map(() => t.graphql(PRODUCTS, { token })));
    proxy.blackHole();
    // The token lookup is now waiting on an open connection when the cut comes.
    const pending = timedFetch('/graphql', graphqlRequest());
    await new Promise((r) => setTimeout(r, 300));
    await proxy.cut();
    const { res, text } = await pending;
    expect(res.status).toBe(503);
    expect(text).not.toMatch(LEAKY);
    await proxy.restore();
    await expectRecoveredWithoutLeaks();
  });

  it('a resolver whose statement times out gets a masked GraphQL 503, not a 500 or an SQL message', async () => {
    // Authentication reads other tables and passes; the catalogue query then waits
    // on the lock until statement_timeout cancels it.
    const locker = new pg.Client({ connectionString: direct.url });
    await locker.connect();
    try {
      await locker.query('BEGIN');
      await locker.query('LOCK TABLE products IN ACCESS EXCLUSIVE MODE');
      const started = Date.now();
      const res = await t.graphql(PRODUCTS, { token });
      expect(Date.now() - started).toBeLessThan(3_000);
      expect(res.status).toBe(503);
      expect(res.headers.get('retry-after')).toMatch(/^\d+$/);
      expect(res.body.errors).toEqual([
        expect.objectContaining({
          message: 'Service temporarily unavailable.',
          extensions: { code: 'SERVICE_UNAVAILABLE' },
        }),
      ]);
      expect(JSON.stringify(res.body)).not.toMatch(LEAKY);
    } finally {
      await locker.query('ROLLBACK');
      await locker.end();
    }
    expect((await t.graphql(PRODUCTS, { token })).status).toBe(200);
  });

  it('a client that disconnects mid-request does not keep a connection checked out', async () => {
    await t.graphql(PRODUCTS, { token });
    proxy.blackHole();
    const abort = new AbortController();
    const pending = fetch(`${t.url}/graphql`, { ...graphqlRequest(), signal: abort.signal }).catch((e: Error) => e);
    await new Promise((r) => setTimeout(r, 300));
    abort.abort();
    expect(await pending).toBeInstanceOf(Error);
    // Still black-holed: the abandoned request's connection must come back (or be discarded) on its own.
    const stats = await eventually(
      async () => proxied.poolStats!(),
      (s) => s.total === s.idle && s.waiting === 0,
      5_000,
    );
    expect(stats.total - stats.idle).toBe(0);
    expect(stats.waiting).toBe(0);
    expect(t.logs.lines.some((l) => JSON.parse(l).status === 499)).toBe(true);
    await proxy.restore();
    await expectRecoveredWithoutLeaks();
  });
});

import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServerProcess, waitForStatus } from '../support/process.ts';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy.ts';

const reason = 'a cold start without the database needs a TCP PostgreSQL (set DATABASE_URL)';

describe.skipIf(!process.env.DATABASE_URL)(`starting while the database is down (${reason})`, () => {
  let admin: pg.Client;
  let proxy: TcpProxy;
  let databaseUrl: string;
  const name = `pcs_cold_${randomBytes(4).toString('hex')}`;

  beforeAll(async () => {
    // An empty database: the service must also apply every migration once it gets through.
    admin = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name}`);
    const url = new URL(process.env.DATABASE_URL!);
    url.pathname = `/${name}`;
    proxy = await startTcpProxy({ host: url.hostname, port: Number(url.port || 5432) }, { initially: 'cut' });
    databaseUrl = proxy.proxiedUrl(url.toString());
  });

  afterAll(async () => {
    await proxy?.close();
    await admin?.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin?.end();
  });

  it('listens, reports not-ready, waits for the database without crashing, then becomes ready', async () => {
    const server = await startServerProcess({ DATABASE_URL: databaseUrl });
    try {
      expect(await waitForStatus(`${server.url}/health`, 200, 60_000)).toBe(200);
      const ready = await fetch(`${server.url}/ready`);
      expect(ready.status).toBe(503);
      const gql = await fetch(`${server.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: 'Bearer 1|whatever' },
        body: JSON.stringify({ query: '{ __typename }' }),
      });
      expect(gql.status).toBe(503);
      expect(gql.headers.get('retry-after')).toMatch(/^\d+$/);
      expect((await gql.json()).errors[0].extensions.code).toBe('SERVICE_UNAVAILABLE');

      // It keeps trying (and keeps running) while the database stays away.
      await server.waitForLog((l) => l.msg === 'database not reachable; retrying' && l.attempt >= 3, 30_000);
      expect(server.child.exitCode).toBeNull();
      expect((await fetch(`${server.url}/health`)).status).toBe(200);

      await proxy.restore();
      expect(await waitForStatus(`${server.url}/ready`, 200, 15_000)).toBe(200);
      const direct = new pg.Client({
        connectionString: databaseUrl.replace(
          `:${proxy.port}/`,
          `:${new URL(process.env.DATABASE_URL!).port || 5432}/`,
        ),
      });
      await direct.connect();
      const { rows } = await direct.query('SELECT count(*)::int AS n FROM kysely_migration');
      await direct.end();
      expect(rows[0].n).toBeGreaterThan(0);
      const login = await fetch(`${server.url}/api/v1/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: 'nobody@example.com', password: 'not-a-password' }),
      });
      // Tables exist now: an unknown user is a plain 401.
      expect(login.status).toBe(401);

      server.child.kill('SIGTERM');
      expect((await server.exited).code).toBe(0);
    } finally {
      server.kill();
    }
  }, 120_000);
});

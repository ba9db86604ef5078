import http from 'node:http';
import pg from 'pg';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withTenant } from '../../src/platform/tenancy.ts';
import { startTestApp, type TestApp } from '../support/app.ts';
import { request } from '../support/raw-http.ts';

// One company's requests in flight are bounded (GRAPHQL_MAX_IN_FLIGHT_PER_TENANT) while another's are served,
// and the request metrics say which company each request was for.

const METRICS_TOKEN = 'metrics-token-for-tests-0123456789';
const STOREFRONT = 'https://shop.example.org';
const onPostgres = Boolean(process.env.DATABASE_URL);
const REFUSAL = 'Too many requests in flight for this tenant (GRAPHQL_MAX_IN_FLIGHT_PER_TENANT).';
// Distinct queries: identical ones in flight together execute once (the response cache's single flight).
const pageOf = (first: number) => `{ products(first: ${first}) { data { id name } } }`;

interface Company {
  id: string;
  host: string;
  token: string;
}

async function until(check: () => Promise<boolean>, timeoutMs = 5_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('condition not reached in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** A tenant and its host, by SQL, once the directory knows them; then a user of its own with a token. */
async function createCompany(t: TestApp, slug: string): Promise<Company> {
  const db = t.app.database.db;
  const { rows } = await sql<{ id: string }>`
    INSERT INTO tenants (slug, name) VALUES (${slug}, ${slug.toUpperCase()}) RETURNING id::text AS id
  `.execute(db);
  const id = rows[0]!.id;
  const host = `${slug}.example.org`;
  await sql`INSERT INTO tenant_hosts (host, tenant_id) VALUES (${host}, ${id})`.execute(db);
  await until(async () => (await t.app.tenants.resolve(host)) !== 'unknown');
  const token = await withTenant(id, async () => {
    const auth = t.app.modules.auth.service;
    const user = await auth.createUser({
      name: slug,
      email: `${slug}@example.org`,
      password: `pw-${slug}-long-enough`,
      isAdmin: false,
    });
    return auth.issueToken(user.id, 'fair share');
  });
  return { id, host, token };
}

function graphqlAs(t: TestApp, company: Company, query: string, agent?: http.Agent) {
  return request(t.url, '/graphql', {
    method: 'POST',
    headers: { host: company.host, accept: 'application/json' },
    token: company.token,
    body: { query },
    ...(agent ? { agent } : {}),
  });
}

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
      await client.query('SELECT pg_stat_clear_snapshot()');
      const { rows } = await client.query<{ n: string }>(
        `SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND pid <> pg_backend_pid()`,
      );
      return Number(rows[0]!.n);
    },
  };
}

describe('fair share between customer companies', () => {
  let t: TestApp;
  let alpha: Company;
  let beta: Company;
  beforeAll(async () => {
    t = await startTestApp({ env: { GRAPHQL_MAX_IN_FLIGHT_PER_TENANT: '2', METRICS_TOKEN, CORS_ORIGINS: STOREFRONT } });
    alpha = await createCompany(t, 'alpha');
    beta = await createCompany(t, 'beta');
  });
  afterAll(() => t?.close());

  it.skipIf(!onPostgres)(
    "a company with its share in flight gets 429 on every route, another company's requests are served, and the slots come back",
    async () => {
      const lock = await lockProducts(t.database.url!);
      let held: Promise<{ status: number }>[] = [];
      try {
        held = [graphqlAs(t, alpha, pageOf(1)), graphqlAs(t, alpha, pageOf(2))];
        await until(async () => (await lock.waiting()) === 2);

        const refused = await graphqlAs(t, alpha, '{ __typename }');
        expect(refused.status).toBe(429);
        expect(refused.headers['retry-after']).toBe('1');
        expect(refused.json()).toEqual({ errors: [{ message: REFUSAL, extensions: { code: 'TOO_MANY_REQUESTS' } }] });
        // A storefront's browser can read it: the refusal carries the CORS headers.
        const fromBrowser = await request(t.url, '/graphql', {
          method: 'POST',
          headers: { host: alpha.host, origin: STOREFRONT, accept: 'application/json' },
          token: alpha.token,
          body: { query: '{ __typename }' },
        });
        expect(fromBrowser.status).toBe(429);
        expect(fromBrowser.headers['access-control-allow-origin']).toBe(STOREFRONT);
        // REST too, before authentication: the limit is the company's, whatever the route.
        const refusedRest = await request(t.url, '/api/v1/tokens', {
          headers: { host: alpha.host },
          token: alpha.token,
        });
        expect(refusedRest.status).toBe(429);
        expect(refusedRest.headers['retry-after']).toBe('1');
        expect(refusedRest.json()).toEqual({ success: false, message: REFUSAL });

        // One at a time: beta's share is 2 as well.
        const served = [
          await graphqlAs(t, beta, '{ __typename }'),
          await graphqlAs(t, beta, '{ me { user { email } } }'),
          await request(t.url, '/api/v1/tokens', { headers: { host: beta.host }, token: beta.token }),
        ];
        expect(served.map((r) => r.status)).toEqual([200, 200, 200]);
        expect(served[1]!.json().data.me.user.email).toBe('beta@example.org');
      } finally {
        await lock.release();
      }
      expect((await Promise.all(held)).map((r) => r.status)).toEqual([200, 200]);
      // Both slots are back: two at once fit again.
      const again = await Promise.all([graphqlAs(t, alpha, pageOf(3)), graphqlAs(t, alpha, '{ __typename }')]);
      expect(again.map((r) => r.status)).toEqual([200, 200]);
    },
  );

  it('a company sending one request at a time on one connection is never refused, even at a share of 1', async () => {
    const one = await startTestApp({ env: { GRAPHQL_MAX_IN_FLIGHT_PER_TENANT: '1' } });
    try {
      const gamma = await createCompany(one, 'gamma');
      const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
      const statuses: number[] = [];
      for (let i = 0; i < 20; i++) statuses.push((await graphqlAs(one, gamma, '{ __typename }', agent)).status);
      agent.destroy();
      expect(statuses).toEqual(Array(20).fill(200));
    } finally {
      await one.close();
    }
  });

  it("labels the request metrics with each company's slug; probes carry no tenant", async () => {
    expect((await graphqlAs(t, alpha, 'query FairShareProbe { __typename }')).status).toBe(200);
    expect((await graphqlAs(t, beta, 'query FairShareProbe { __typename }')).status).toBe(200);
    expect((await request(t.url, '/health')).status).toBe(200);
    const res = await request(t.url, '/metrics', { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
    expect(res.status).toBe(200);
    for (const slug of ['alpha', 'beta']) {
      expect(res.text).toMatch(
        new RegExp(
          `^http_requests_total\\{method="POST",route="/graphql",operation="FairShareProbe",status="200",tenant="${slug}"\\} 1$`,
          'm',
        ),
      );
      expect(res.text).toMatch(
        new RegExp(
          `^http_request_duration_seconds_count\\{method="POST",route="/graphql",operation="FairShareProbe",tenant="${slug}"\\} 1$`,
          'm',
        ),
      );
    }
    expect(res.text).toMatch(/^http_requests_total\{method="GET",route="\/health",operation="",status="200"\} \d+$/m);
    if (onPostgres) {
      // The refusals of the first test, under the refused company's label.
      expect(res.text).toMatch(
        /^http_requests_total\{method="POST",route="\/graphql",operation="",status="429",tenant="alpha"\} 2$/m,
      );
    }
  });
});

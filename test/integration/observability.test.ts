import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.ts';

const METRICS_TOKEN = 'metrics-token-for-tests-0123456789';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

let t: TestApp;
let user: { id: string; email: string; password: string };
let token: string;

beforeAll(async () => {
  t = await startTestApp({ env: { METRICS_TOKEN } });
  user = await t.createUser();
  token = await t.login(user.email, user.password);
});
afterAll(() => t.close());

type LogLine = Record<string, unknown>;
const lines = (): LogLine[] => t.logs.lines.map((l) => JSON.parse(l) as LogLine);
const accessLine = (reqId: string) => lines().find((l) => l.msg === 'request' && l.reqId === reqId);

/** The access line is written when the response ends, which may be just after the client has it. */
async function waitForAccessLine(reqId: string): Promise<LogLine | undefined> {
  for (let i = 0; i < 50 && !accessLine(reqId); i++) await new Promise((r) => setTimeout(r, 20));
  return accessLine(reqId);
}

describe('request ids', () => {
  it('are generated when the client sends none, and echoed in X-Request-Id', async () => {
    const res = await fetch(`${t.url}/health`);
    expect(res.headers.get('x-request-id')).toMatch(UUID);
  });

  it('keep a sane id from the client and replace one that is not', async () => {
    const sane = await fetch(`${t.url}/health`, { headers: { 'x-request-id': 'lb-7f3a.42:abc_DEF' } });
    expect(sane.headers.get('x-request-id')).toBe('lb-7f3a.42:abc_DEF');
    for (const bad of ['has spaces in it', 'x'.repeat(129), 'quote"d', '']) {
      const res = await fetch(`${t.url}/health`, { headers: { 'x-request-id': bad } });
      expect(res.headers.get('x-request-id')).toMatch(UUID);
    }
  });

  it('reach GraphQL responses too', async () => {
    const res = await t.graphql('query Ids { products(first: 1) { data { id } } }', { token });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-request-id')).toMatch(UUID);
  });
});

describe('logs', () => {
  it('one JSON access line per request: id, method, path without the query string, status, duration', async () => {
    const res = await fetch(`${t.url}/health?private=do-not-log-me`, { headers: { 'x-request-id': 'access-line-1' } });
    expect(res.status).toBe(200);
    const line = await waitForAccessLine('access-line-1');
    expect(line).toMatchObject({ level: 30, msg: 'request', method: 'GET', path: '/health', status: 200 });
    expect(typeof line!.durationMs).toBe('number');
    expect(typeof line!.time).toBe('string');
    expect(t.logs.text).not.toContain('do-not-log-me');
  });

  it('GraphQL access lines carry the operation name', async () => {
    const named = await fetch(`${t.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}`, 'x-request-id': 'gql-named' },
      body: JSON.stringify({ query: 'query FirstProducts { products(first: 1) { data { id } } }' }),
    });
    expect(named.status).toBe(200);
    expect(await waitForAccessLine('gql-named')).toMatchObject({
      path: '/graphql',
      status: 200,
      operationName: 'FirstProducts',
    });

    const chosen = await fetch(`${t.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}`, 'x-request-id': 'gql-chosen' },
      body: JSON.stringify({
        query: 'query A { products(first: 1) { data { id } } } query B { product(id: "1") { id } }',
        operationName: 'B',
      }),
    });
    expect(chosen.status).toBe(200);
    expect(await waitForAccessLine('gql-chosen')).toMatchObject({ operationName: 'B' });
  });

  it('every line a request causes carries its id, auth events included', async () => {
    const res = await fetch(`${t.url}/api/v1/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-request-id': 'login-events' },
      body: JSON.stringify({ email: user.email, password: 'not-the-password' }),
    });
    expect(res.status).toBe(401);
    await waitForAccessLine('login-events');
    const event = lines().find((l) => l.event === 'login.failed' && l.reqId === 'login-events');
    expect(event).toBeDefined();
    expect(accessLine('login-events')).toMatchObject({ method: 'POST', path: '/api/v1/login', status: 401 });
  });

  it('never contain a token, a password or an Authorization header', async () => {
    const fresh = await t.login(user.email, user.password);
    await t.graphql('{ products(first: 1) { data { id } } }', { token: fresh });
    await fetch(`${t.url}/api/v1/logout`, { method: 'POST', headers: { authorization: `Bearer ${fresh}` } });
    await fetch(`${t.url}/graphql`, {
      method: 'POST',
      headers: { authorization: 'Bearer 1|not-a-real-token-but-secret' },
    });
    const text = t.logs.text;
    expect(text).not.toContain(fresh.split('|')[1]!);
    expect(text).not.toContain(token.split('|')[1]!);
    expect(text).not.toContain('not-a-real-token-but-secret');
    expect(text).not.toContain(user.password);
    expect(text.toLowerCase()).not.toContain('bearer');
  });
});

describe('GET /metrics', () => {
  const scrape = (authorization?: string) =>
    fetch(`${t.url}/metrics`, { headers: authorization ? { authorization } : {} });

  it('refuses a missing or wrong token', async () => {
    const none = await scrape();
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toBe('Bearer');
    expect((await scrape(`Bearer ${METRICS_TOKEN}x`)).status).toBe(401);
    // A user's API token is not a metrics token.
    expect((await scrape(`Bearer ${token}`)).status).toBe(401);
  });

  it('serves Prometheus text: requests by route and operation, latency, SQL, logins, pool', async () => {
    await t.graphql('query MetricsProbe { products(first: 1) { data { id } } }', { token });
    await fetch(`${t.url}/api/v1/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: user.email, password: 'wrong-again' }),
    });
    const res = await scrape(`Bearer ${METRICS_TOKEN}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/plain');
    const text = await res.text();
    expect(text).toMatch(
      /^http_requests_total\{method="POST",route="\/graphql",operation="MetricsProbe",status="200",tenant="default"\} 1$/m,
    );
    expect(text).toMatch(
      /^http_request_duration_seconds_bucket\{le="\+Inf",method="POST",route="\/graphql",operation="MetricsProbe",tenant="default"\} 1$/m,
    );
    expect(text).toMatch(/^http_requests_total\{method="GET",route="\/health",operation="",status="200"\} \d+$/m);
    expect(text).toMatch(/^db_statement_duration_seconds_count\{statement="select",outcome="ok"\} [1-9]\d*$/m);
    expect(text).toMatch(/^auth_logins_total\{outcome="ok"\} [1-9]\d*$/m);
    expect(text).toMatch(/^auth_logins_total\{outcome="failed"\} [1-9]\d*$/m);
    expect(text).toMatch(/^auth_logins_total\{outcome="throttled"\} \d+$/m);
    expect(text).toMatch(/^process_resident_memory_bytes \d+/m);
    if (t.database.url) {
      expect(text).toMatch(/^db_pool_connections_in_use \d+$/m);
      expect(text).toMatch(/^db_pool_connections_idle [1-9]\d*$/m);
      expect(text).toMatch(/^db_pool_requests_waiting 0$/m);
    }
  });

  it('label operations by name only once they ran: made-up names on invalid documents take no label slot', async () => {
    const other = await startTestApp({ env: { METRICS_TOKEN } });
    try {
      const u = await other.createUser();
      const own = await other.login(u.email, u.password);
      // 200 names: every label slot there is (platform/metrics.ts), 20 requests at a time.
      const madeUp = async (i: number) => {
        const res = await fetch(`${other.url}/graphql`, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            accept: 'application/graphql-response+json',
            authorization: `Bearer ${own}`,
          },
          body: JSON.stringify({ query: `query MadeUp${i} { noSuchField }`, operationName: `MadeUp${i}` }),
        });
        return res.status;
      };
      for (let i = 0; i < 200; i += 20) {
        expect(await Promise.all(Array.from({ length: 20 }, (_, j) => madeUp(i + j)))).toEqual(Array(20).fill(400));
      }
      expect((await other.graphql('query RealAfterFlood { __typename }', { token: own })).status).toBe(200);
      const res = await fetch(`${other.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
      const text = await res.text();
      expect(text).toMatch(
        /^http_requests_total\{method="POST",route="\/graphql",operation="RealAfterFlood",status="200",tenant="default"\} 1$/m,
      );
      expect(text).toMatch(
        /^http_requests_total\{method="POST",route="\/graphql",operation="\(not run\)",status="400",tenant="default"\} 200$/m,
      );
      expect(text).not.toContain('MadeUp');
    } finally {
      await other.close();
    }
  }, 120_000);

  it('label raw paths by route, so ids and junk do not become series', async () => {
    await fetch(`${t.url}/no/such/path/12345`);
    const text = await (await scrape(`Bearer ${METRICS_TOKEN}`)).text();
    // As a label value (a metric's value, such as a lag of 0.012345 s, may hold the digits by chance).
    expect(text).not.toMatch(/"[^"\n]*12345[^"\n]*"/);
    expect(text).toMatch(/route="unmatched",operation="",status="404"/);
  });
});

describe('GET /metrics without METRICS_TOKEN', () => {
  it('is not served at all', async () => {
    const other = await startTestApp({ database: t.database });
    try {
      const res = await fetch(`${other.url}/metrics`);
      expect(res.status).toBe(404);
    } finally {
      await other.close();
    }
  });
});

import net from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { seedCatalog } from '../../db/seeds/catalog.ts';
import { startTestApp, type TestApp } from '../support/app.ts';
import {
  expectOnlyTokenLookup,
  FEDERATION_SECRET,
  FULL_PRODUCT,
  GATEWAY_HEADERS,
  postGraphQL,
  tokenFor,
} from '../support/edge.ts';
import { rawExchange, request } from '../support/raw-http.ts';

// One test per abuse finding of the security review: each one failed before the fix.

const SECRET = FEDERATION_SECRET;
const GATEWAY = GATEWAY_HEADERS;

let t: TestApp;
let token: string;
let otherToken: string;
let productIds: string[];
const consoleCalls = () => [console.error, console.warn, console.log].map((f) => vi.mocked(f).mock.calls.length);

beforeAll(async () => {
  t = await startTestApp({ env: { FEDERATION_SECRET: SECRET } });
  await seedCatalog(t.app.database.db, {
    products: 120,
    seed: 11,
    shape: { steps: 2, components: 2, customisations: 2 },
  });
  token = await tokenFor(t);
  otherToken = await tokenFor(t);
  const page = await postGraphQL(t, token, { query: '{ products(first: 100) { data { id } } }' });
  productIds = page.body.data.products.data.map((p: { id: string }) => p.id);
});
afterAll(() => t.close());
afterEach(() => vi.restoreAllMocks());

const entitiesQuery = `query ($r: [_Any!]!) { _entities(representations: $r) { ... on Product { ${FULL_PRODUCT} } } }`;
const representations = (n: number) =>
  Array.from({ length: n }, (_, i) => ({ __typename: 'Product', id: productIds[i % productIds.length] }));

describe('1. federation _entities cannot amplify', () => {
  it('refuses _entities and _service to a client that is not the gateway, before any catalogue SQL', async () => {
    for (const headers of [{}, { 'router-authorization': 'wrong' }, { 'router-authorization': `${SECRET}x` }] as Record<
      string,
      string
    >[]) {
      for (const payload of [
        { query: entitiesQuery, variables: { r: representations(1) } },
        { query: '{ _service { sdl } }' },
        { query: '{ ... on Query { _service { sdl } } }' },
      ]) {
        t.database.queries.reset();
        const res = await postGraphQL(t, token, payload, headers);
        expect(res.status).toBe(403);
        expect(res.body).toEqual({
          errors: [
            {
              message: 'Only the federation gateway may query _entities and _service.',
              extensions: { code: 'FORBIDDEN' },
            },
          ],
        });
        expectOnlyTokenLookup(t);
      }
    }
  });

  it('answers the gateway, and counts representations in the cost', async () => {
    const ok = await postGraphQL(t, token, { query: entitiesQuery, variables: { r: representations(100) } }, GATEWAY);
    expect(ok.status).toBe(200);
    expect(ok.body.data._entities).toHaveLength(100);
    // Each full product costs 15 fields: 400 of them are over the 5000 limit, whoever asks.
    t.database.queries.reset();
    const big = await postGraphQL(t, token, { query: entitiesQuery, variables: { r: representations(400) } }, GATEWAY);
    expect(big.status).toBe(400);
    expect(big.body.errors[0]).toMatchObject({
      message: 'Query cost limit of 5000 exceeded, found 6001.',
      extensions: { code: 'GRAPHQL_VALIDATION_FAILED' },
    });
    expectOnlyTokenLookup(t);
  });

  it('bounds representations per request, for the gateway too, inline or in variables', async () => {
    const few = await startTestApp({ env: { FEDERATION_SECRET: SECRET, FEDERATION_MAX_REPRESENTATIONS: '20' } });
    try {
      const fewToken = await tokenFor(few);
      const ids = (n: number) => Array.from({ length: n }, (_, i) => ({ __typename: 'Product', id: String(i + 1) }));
      const refused = {
        message: 'Too many representations: 21 (at most 20 per request).',
        extensions: { code: 'GRAPHQL_VALIDATION_FAILED' },
      };
      few.database.queries.reset();
      const viaVariables = await postGraphQL(
        few,
        fewToken,
        { query: 'query ($r: [_Any!]!) { _entities(representations: $r) { __typename } }', variables: { r: ids(21) } },
        GATEWAY,
      );
      expect([viaVariables.status, viaVariables.body.errors]).toEqual([400, [refused]]);
      const inline = ids(21)
        .map((r) => `{ __typename: "Product", id: "${r.id}" }`)
        .join(' ');
      const viaLiteral = await postGraphQL(
        few,
        fewToken,
        { query: `{ _entities(representations: [${inline}]) { __typename } }` },
        GATEWAY,
      );
      expect([viaLiteral.status, viaLiteral.body.errors]).toEqual([400, [refused]]);
      expectOnlyTokenLookup(few);
      const twenty = await postGraphQL(
        few,
        fewToken,
        { query: 'query ($r: [_Any!]!) { _entities(representations: $r) { __typename } }', variables: { r: ids(20) } },
        GATEWAY,
      );
      expect(twenty.status).toBe(200);
    } finally {
      await few.close();
    }
  });

  it('without FEDERATION_SECRET the federation fields are refused to everyone', async () => {
    const closed = await startTestApp();
    try {
      const closedToken = await tokenFor(closed);
      const res = await postGraphQL(closed, closedToken, { query: '{ _service { sdl } }' }, GATEWAY);
      expect(res.status).toBe(403);
      expect(res.body.errors[0].extensions.code).toBe('FORBIDDEN');
    } finally {
      await closed.close();
    }
  });
});

describe('2. the cost limit prices the variable values that will run', () => {
  const pages = (n: number) =>
    `query ($n: Int = 1) { ${Array.from({ length: n }, (_, i) => `p${i}: products(first: $n) { data { ${FULL_PRODUCT} } }`).join(' ')} }`;

  it('refuses 15 pages whose size comes from a variable over its default', async () => {
    t.database.queries.reset();
    const res = await postGraphQL(t, token, { query: pages(15), variables: { n: 100 } });
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([
      { message: 'Query cost limit of 5000 exceeded, found 24015.', extensions: { code: 'GRAPHQL_VALIDATION_FAILED' } },
    ]);
    expectOnlyTokenLookup(t);
  });

  it('admits the same document with a small value, and prices an omitted variable at its default', async () => {
    const small = await postGraphQL(t, token, { query: pages(15), variables: { n: 2 } });
    expect(small.status).toBe(200);
    expect(small.body.data.p14.data).toHaveLength(2);
    const omitted = await postGraphQL(t, token, { query: pages(2) });
    expect(omitted.status).toBe(200);
    expect(omitted.body.data.p1.data).toHaveLength(1);
  });

  it('prices a variable without a default, left out, at the argument default that will run (20)', async () => {
    const tight = await startTestApp({ env: { GRAPHQL_MAX_COST: '400' } });
    try {
      const tightToken = await tokenFor(tight);
      const page = (alias: string) => `${alias}: products(first: $n) { data { ${FULL_PRODUCT} } }`;
      // One page: 1 + 20 × (data + 15 fields) = 321.
      const one = await postGraphQL(tight, tightToken, { query: `query ($n: Int) { ${page('a')} }` });
      expect(one.status).toBe(200);
      const two = await postGraphQL(tight, tightToken, { query: `query ($n: Int) { ${page('a')} ${page('b')} }` });
      expect(two.status).toBe(400);
      expect(two.body.errors[0].message).toBe('Query cost limit of 400 exceeded, found 642.');
    } finally {
      await tight.close();
    }
  });
});

describe('3. compiled operations are kept per operation name', () => {
  it('answers operation B with B, after the same document ran A for another user', async () => {
    const query = 'query A { product(id: "1") { id name } } query B { products(first: 2) { data { id } } }';
    const a = await postGraphQL(t, token, { query, operationName: 'A' });
    expect(Object.keys(a.body.data)).toEqual(['product']);
    const b = await postGraphQL(t, otherToken, { query, operationName: 'B' });
    expect(b.status).toBe(200);
    expect(b.body.data).toEqual({ products: { data: [{ id: productIds[0] }, { id: productIds[1] }] } });
    const aAgain = await postGraphQL(t, otherToken, { query, operationName: 'A' });
    expect(aAgain.body).toEqual(a.body);
  });
});

describe('4. hostile documents and request lines get a 4xx, never a 500 or a stack', () => {
  it.each([
    ['a subscription', 'subscription { __typename }', /^This service does not support subscription operations\.$/],
    ['a fragment cycle', '{ ...A } fragment A on Query { ...A }', /^Cannot spread fragment "A" within itself\.$/],
    ['an unknown fragment', '{ ...constructor }', /^Unknown fragment "constructor"\.$/],
    ['an operation named __proto__', 'query __proto__ { __typename }', /^Names beginning with "__" are reserved/],
    [
      'a fragment named __proto__',
      '{ ...__proto__ } fragment __proto__ on Query { __typename }',
      /^Names beginning with "__" are reserved/,
    ],
  ])(
    '%s is a request error with a clear message (400, or 200 to legacy application/json)',
    async (_name, query, message) => {
      for (const f of ['error', 'warn', 'log'] as const) vi.spyOn(console, f);
      // GraphQL over HTTP: a request error's status depends on the media type only.
      for (const [accept, status] of [
        ['application/graphql-response+json', 400],
        ['application/json', 200],
      ] as const) {
        t.database.queries.reset();
        const res = await postGraphQL(t, token, { query }, { accept });
        expect(res.status).toBe(status);
        expect(res.body.errors).toHaveLength(1);
        expect(res.body.errors[0].message).toMatch(message);
        expect(res.body.errors[0].extensions.code).toBe('GRAPHQL_VALIDATION_FAILED');
        expectOnlyTokenLookup(t);
      }
      expect(consoleCalls()).toEqual([0, 0, 0]);
      expect(t.logs.text).not.toMatch(/"level":50/);
    },
  );

  it.each(['//[', '//%', '//x:99999/', '/graphql?%zz'])('a request line %s is a 400 or a 404', async (target) => {
    const before = t.logs.lines.length;
    const raw = await rawExchange(
      t.url,
      Buffer.from(`GET ${target} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`, 'latin1'),
    );
    const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(raw)?.[1]);
    expect([400, 401, 404]).toContain(status);
    const newLines = t.logs.lines.slice(before).join('\n');
    expect(newLines).not.toMatch(/"level":50/);
  });
});

describe('5. login takes JSON only', () => {
  it.each([
    ['text/plain', (e: string, p: string) => JSON.stringify({ email: e, password: p })],
    [
      'application/x-www-form-urlencoded',
      (e: string, p: string) => new URLSearchParams({ email: e, password: p }).toString(),
    ],
    [
      'multipart/form-data; boundary=x',
      (e: string) => `--x\r\nContent-Disposition: form-data; name="email"\r\n\r\n${e}\r\n--x--\r\n`,
    ],
    [undefined, (e: string, p: string) => JSON.stringify({ email: e, password: p })],
  ])('%s is refused with 415, before any password check', async (type, body) => {
    const user = await t.createUser();
    t.database.queries.reset();
    const payload = body(user.email, user.password);
    const res = await request(t.url, '/api/v1/login', {
      method: 'POST',
      headers: { 'content-length': Buffer.byteLength(payload), ...(type ? { 'content-type': type } : {}) },
      rawBody: payload,
    });
    expect(res.status).toBe(415);
    expect(res.json()).toEqual({
      success: false,
      message: 'The request body must be JSON (Content-Type: application/json).',
    });
    expect(t.database.queries.count).toBe(0);
  });

  it('JSON with a charset still logs in', async () => {
    const user = await t.createUser();
    const res = await request(t.url, '/api/v1/login', {
      method: 'POST',
      headers: { 'content-type': 'application/json; charset=utf-8' },
      body: { email: user.email, password: user.password },
    });
    expect(res.status).toBe(200);
  });
});

describe('7. smaller findings', () => {
  it('counts aliases named like __typename against the alias limit', async () => {
    const aliases = (n: number) => `{ ${Array.from({ length: n }, (_, i) => `a${i}: __typename`).join(' ')} }`;
    expect((await postGraphQL(t, token, { query: aliases(15) })).status).toBe(200);
    const res = await postGraphQL(t, token, { query: aliases(16) });
    expect(res.status).toBe(400);
    expect(res.body.errors[0].message).toBe('Aliases limit of 15 exceeded, found 16.');
  });

  it('logs at most 100 characters of an operation name', async () => {
    const name = `Op${'x'.repeat(200_000)}`;
    const before = t.logs.lines.length;
    await postGraphQL(t, token, { query: `query ${name} { __typename }`, operationName: name });
    const access = t.logs.lines
      .slice(before)
      .map((l) => JSON.parse(l))
      .find((l) => l.msg === 'request');
    expect(access.operationName).toBe(`${name.slice(0, 100)}…`);
    expect(JSON.stringify(access).length).toBeLessThan(1_000);
  });

  it('an unknown operationName, several unnamed operations and ill-typed variables are request errors: 200 to legacy JSON clients, 400 otherwise', async () => {
    for (const [payload, code] of [
      [{ query: 'query A { __typename }', operationName: 'B' }, 'GRAPHQL_VALIDATION_FAILED'],
      [{ query: 'query A { __typename } query B { __typename }' }, 'GRAPHQL_VALIDATION_FAILED'],
      [
        { query: 'query ($n: Int!) { products(first: $n) { data { id } } }', variables: { n: 'ten' } },
        'BAD_USER_INPUT',
      ],
    ] as const) {
      const res = await postGraphQL(t, token, payload, { accept: 'application/json' });
      expect(res.status).toBe(200);
      expect(res.body.errors[0].extensions.code).toBe(code);
      expect((await postGraphQL(t, token, payload, { accept: 'application/graphql-response+json' })).status).toBe(400);
    }
  });

  it.each(['/graphql', '/api/v1/login'])(
    'a client that goes away mid-body on %s is logged as such, not as an error',
    async (path) => {
      const before = t.logs.lines.length;
      await new Promise<void>((resolve) => {
        const url = new URL(t.url);
        const socket = net.connect(Number(url.port), url.hostname, () => {
          socket.write(
            `POST ${path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\n` +
              'Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"query":',
          );
          setTimeout(() => {
            socket.destroy();
            resolve();
          }, 200);
        });
      });
      await new Promise((r) => setTimeout(r, 300));
      const lines = t.logs.lines.slice(before).map((l) => JSON.parse(l));
      expect(lines.filter((l) => l.level >= 40)).toEqual([]);
      expect(lines.find((l) => l.msg === 'request')).toMatchObject({ status: 499, aborted: true });
    },
  );
});

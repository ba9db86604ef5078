import net from 'node:net';
import { getIntrospectionQuery } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedCatalog } from '../../db/seeds/catalog.ts';
import { startTestApp, type TestApp } from '../support/app.ts';
import {
  expectOnlyTokenLookup,
  FULL_PAGE_INFO,
  FULL_PRODUCT,
  postGraphQL,
  rawGraphQL,
  tokenFor,
} from '../support/edge.ts';

let t: TestApp;
let token: string;
let productId: string;

beforeAll(async () => {
  t = await startTestApp();
  await seedCatalog(t.app.database.db, {
    products: 120,
    seed: 4,
    shape: { steps: 2, components: 2, customisations: 2 },
  });
  token = await tokenFor(t);
  const first = await postGraphQL(t, token, { query: '{ products(first: 1) { data { id } } }' });
  productId = first.body.data.products.data[0].id;
});
afterAll(() => t.close());

const DEEPEST_PAGE = `{ products { data { steps { components { customisations { id } } } } } }`;
const deepestProduct = (id: string) =>
  `{ product(id: "${id}") { steps { components { customisations { id name type price } } } } }`;

/** Sends a query that must be refused by a limit, and checks the refusal. */
async function expectRefused(app: TestApp, appToken: string, query: string, message: RegExp) {
  app.database.queries.reset();
  const res = await postGraphQL(app, appToken, { query });
  expect(res.status).toBe(400);
  expect(res.body.data).toBeUndefined();
  expect(res.body.errors).toHaveLength(1);
  expect(res.body.errors[0].message).toMatch(message);
  expect(res.body.errors[0].extensions.code).toBe('GRAPHQL_VALIDATION_FAILED');
  expectOnlyTokenLookup(app);
  return res;
}

describe('depth limit', () => {
  it('admits the deepest catalogue queries and GraphiQL’s introspection query at the default', async () => {
    expect(t.config.graphql.maxDepth).toBe(10);
    const page = await postGraphQL(t, token, { query: DEEPEST_PAGE });
    expect(page.status).toBe(200);
    expect(page.body.errors).toBeUndefined();
    expect(page.body.data.products.data[0].steps[0].components[0].customisations[0].id).toMatch(/^\d+$/);

    const one = await postGraphQL(t, token, { query: deepestProduct(productId) });
    expect(one.status).toBe(200);
    expect(one.body.errors).toBeUndefined();
    expect(one.body.data.product.steps).toHaveLength(2);

    for (const options of [
      {},
      {
        descriptions: true,
        specifiedByUrl: true,
        directiveIsRepeatable: true,
        schemaDescription: true,
        inputValueDeprecation: true,
      },
    ]) {
      const introspection = await postGraphQL(t, token, {
        query: getIntrospectionQuery(options),
        operationName: 'IntrospectionQuery',
      });
      expect(introspection.status).toBe(200);
      expect(introspection.body.errors).toBeUndefined();
      expect(introspection.body.data.__schema.queryType.name).toBe('Query');
    }
  });

  it('leaves introspection to the token limit: nested ofTypes pass until the document is too long', async () => {
    // Introspection is the one part of this schema that nests without end (ofType of
    // ofType); it resolves in memory, so the depth rule skips it and the token limit bounds it.
    const nested = (ofTypes: number) =>
      `{ __type(name: "Product") { ${'ofType { '.repeat(ofTypes)}name${' }'.repeat(ofTypes)} } }`;
    const ok = await postGraphQL(t, token, { query: nested(20) });
    expect(ok.status).toBe(200);
    expect(ok.body).toEqual({ data: { __type: { ofType: null } } });
    await expectRefused(t, token, nested(400), /^Token limit of 1000 exceeded\.$/);
  });

  it('with a lower configured limit, the deepest legitimate query is one level too deep', async () => {
    const low = await startTestApp({ env: { GRAPHQL_MAX_DEPTH: '4' } });
    try {
      const lowToken = await tokenFor(low);
      // products > data > steps > components > customisations > id: depth 5 counted from 0.
      await expectRefused(low, lowToken, DEEPEST_PAGE, /^Query depth limit of 4 exceeded\.$/);
      const shallower = await postGraphQL(low, lowToken, {
        query: `{ products { data { steps { components { id } } } } }`,
      });
      expect(shallower.status).toBe(200);
      expect(shallower.body.errors).toBeUndefined();
      // Fragments do not hide depth.
      await expectRefused(
        low,
        lowToken,
        `{ products { data { ...P } } } fragment P on Product { steps { components { customisations { id } } } }`,
        /^Query depth limit of 4 exceeded\.$/,
      );
    } finally {
      await low.close();
    }
  });
});

describe('token limit', () => {
  it('refuses a 100,000-level nested document with a 400, not a 500', async () => {
    const query = `${'{ a '.repeat(100_000)}${'}'.repeat(100_000)}`;
    await expectRefused(t, token, query, /^Token limit of 1000 exceeded\.$/);
  });

  it('counts every time: a refused document is not let through on a second send', async () => {
    // Documents in the parse cache skip the count; a refused one must never get there.
    const query = `{ ${'__typename '.repeat(1001)}}`;
    await expectRefused(t, token, query, /^Token limit of 1000 exceeded\.$/);
    await expectRefused(t, token, query, /^Token limit of 1000 exceeded\.$/);
  });

  it('refuses a flat document with too many tokens, and for legacy application/json clients too (a request error: 200 there)', async () => {
    const query = `{ ${'__typename '.repeat(1001)}}`;
    t.database.queries.reset();
    const res = await rawGraphQL(t, {
      token,
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ query }),
    });
    expect(res.status).toBe(200);
    expect(res.body.errors[0]).toMatchObject({
      message: 'Token limit of 1000 exceeded.',
      extensions: { code: 'GRAPHQL_VALIDATION_FAILED' },
    });
    expectOnlyTokenLookup(t);
    // 994 tokens (repeating one field ~1000 times trips graphql's own overlap budget).
    const under = await postGraphQL(t, token, {
      query: `{ ${'__typename '.repeat(490)} product(id: "${productId}") { ${'id '.repeat(494)}} }`,
    });
    expect(under.status).toBe(200);
    expect(under.body.data.product.id).toBe(productId);
  });
});

describe('alias limit', () => {
  it('admits 15 aliases and refuses 16', async () => {
    const aliased = (n: number) =>
      `{ ${Array.from({ length: n }, (_, i) => `p${i}: product(id: "${productId}") { id }`).join(' ')} }`;
    const ok = await postGraphQL(t, token, { query: aliased(15) });
    expect(ok.status).toBe(200);
    expect(ok.body.data.p14.id).toBe(productId);
    await expectRefused(t, token, aliased(16), /^Aliases limit of 15 exceeded, found 16\.$/);
  });
});

describe('directive limit', () => {
  it('admits 50 directives and refuses 51', async () => {
    const directed = (n: number) => `{ __typename ${'@include(if: true) '.repeat(n)}}`;
    const ok = await postGraphQL(t, token, {
      query: `{ ${Array.from({ length: 50 }, () => '__typename @skip(if: false)').join(' ')} }`,
    });
    expect(ok.status).toBe(200);
    await expectRefused(t, token, directed(51), /^Directives limit of 50 exceeded, found 51\.$/);
  });
});

describe('cost limit', () => {
  const fullPage = (alias: string, after = '') =>
    `${alias}: products(first: 100${after}) { data { ${FULL_PRODUCT} } ${FULL_PAGE_INFO} }`;

  it('admits one full-depth page of 100', async () => {
    const res = await postGraphQL(t, token, { query: `{ ${fullPage('page')} }` });
    expect(res.status).toBe(200);
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.page.data).toHaveLength(100);
  });

  it('refuses two aliased full-depth pages, and prices a page size in a variable at the value sent', async () => {
    await expectRefused(
      t,
      token,
      `{ ${fullPage('a')} ${fullPage('b')} }`,
      /^Query cost limit of 5000 exceeded, found 5202\.$/,
    );
    const twoPages = `query ($n: Int!) { a: products(first: $n) { data { ${FULL_PRODUCT} } ${FULL_PAGE_INFO} } b: products(first: $n) { data { ${FULL_PRODUCT} } ${FULL_PAGE_INFO} } }`;
    t.database.queries.reset();
    const big = await postGraphQL(t, token, { query: twoPages, variables: { n: 100 } });
    expect(big.status).toBe(400);
    expect(big.body.errors[0].message).toBe('Query cost limit of 5000 exceeded, found 5202.');
    expectOnlyTokenLookup(t);
    const small = await postGraphQL(t, token, { query: twoPages, variables: { n: 1 } });
    expect(small.status).toBe(200);
    expect(small.body.data.b.data).toHaveLength(1);
  });

  it('refuses 20 aliased full-depth pages even when the alias limit would let them through', async () => {
    const lenient = await startTestApp({ env: { GRAPHQL_MAX_ALIASES: '100' } });
    try {
      const lenientToken = await tokenFor(lenient);
      const query = `{ ${Array.from({ length: 20 }, (_, i) => fullPage(`p${i}`)).join(' ')} }`;
      await expectRefused(lenient, lenientToken, query, /^Query cost limit of 5000 exceeded, found 52020\.$/);
    } finally {
      await lenient.close();
    }
  });
});

describe('batching and body size', () => {
  it('refuses a JSON array (batched) body', async () => {
    t.database.queries.reset();
    const res = await rawGraphQL(t, {
      token,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify([{ query: '{ __typename }' }, { query: '{ __typename }' }]),
    });
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
    expect(res.text).not.toContain('"__typename"');
    expectOnlyTokenLookup(t);
  });

  it('answers a declared body over 1 MB with 413 before reading it', async () => {
    expect(t.config.graphql.maxBodyBytes).toBe(1024 * 1024);
    const port = new URL(t.url).port;
    // Only the head is sent: a server that waited for the body would never answer.
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = net.connect(Number(port), '127.0.0.1');
      let data = '';
      // The answer comes at once; the socket then stays open a while for the body (discarded) that never comes.
      socket.on('data', (chunk) => {
        data += chunk.toString('latin1');
        if (data.includes('REQUEST_ENTITY_TOO_LARGE')) socket.destroy();
      });
      socket.on('close', () => resolve(data));
      socket.on('error', reject);
      socket.write(
        `POST /graphql HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${token}\r\n` +
          `Content-Type: application/json\r\nContent-Length: ${1024 * 1024 + 1}\r\n\r\n{"query":"`,
      );
    });
    expect(answer).toMatch(/^HTTP\/1\.1 413 /);
    expect(answer).toMatch(/connection: close/i);
    expect(answer).toContain('REQUEST_ENTITY_TOO_LARGE');
  });

  it('cuts off a chunked body once it passes 1 MB', async () => {
    const chunk = 'x'.repeat(64 * 1024);
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        // 4 MB in all: the server must answer long before the end.
        if (sent >= 64) return controller.close();
        sent++;
        controller.enqueue(new TextEncoder().encode(sent === 1 ? `{"query":"{ __typename }","x":"${chunk}` : chunk));
      },
    });
    const res = await fetch(`${t.url}/graphql`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        accept: 'application/graphql-response+json',
      },
      body,
      duplex: 'half',
    } as RequestInit);
    expect(res.status).toBe(413);
    const json = await res.json();
    expect(json.errors[0].extensions.code).toBe('REQUEST_ENTITY_TOO_LARGE');
  });

  it('still accepts a body just under 1 MB', async () => {
    const padding = ' '.repeat(1024 * 1024 - 200);
    const res = await rawGraphQL(t, {
      token,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: `{ __typename${padding}}` }),
    });
    expect(res.status).toBe(200);
    expect(res.body.data.__typename).toBe('Query');
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_TENANT_ID } from '../../src/platform/tenancy.ts';
import { startTestApp, type TestApp } from '../support/app.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import type { RawResponse } from '../support/raw-http.ts';
import {
  addHosts,
  atHost,
  createTenant,
  graphqlAt,
  loginAt,
  masked,
  setTenantState,
  untilRouted,
  userAt,
  type TestTenant,
} from '../support/tenants.ts';

// Which company a request is for, by its Host, and what the other companies' ids, emails, skus,
// tokens and cached answers look like from there: absent, exactly as things that do not exist.

const A = 'a.routing.test';
const B = 'b.routing.test';
const SUSPENDED = 'c.routing.test';
const NOBODY = 'nobody.routing.test';

const ME = '{ me { user { id email } } }';
const BY_SKU = 'query ($sku: String!) { productBySku(sku: $sku) { id name sku } }';
const PRODUCT = 'query ($id: ID!) { product(id: $id) { id name sku } }';
const CREATE = `mutation ($input: CreateProductInput!) {
  createProduct(input: $input) { id sku steps { components { customisations { id } } } } }`;
const RENAME = 'mutation ($id: ID!, $name: String!) { updateProduct(id: $id, input: { name: $name }) { id name } }';
const CONFIGURE = `query ($p: ID!, $s: [SelectionInput!]!) {
  configure(productId: $p, selections: $s) { valid price { total { amount } } } }`;
const SAVE = 'mutation ($p: ID!, $s: [SelectionInput!]!) { saveConfiguration(productId: $p, selections: $s) { id } }';
const SAVED = 'query ($id: ID!) { configuration(id: $id) { id productId } }';
const DELETE_SAVED = 'mutation ($id: ID!) { deleteConfiguration(id: $id) { id } }';

/** Ids no tenant has: the answers for another tenant's ids must read exactly like these. */
const ABSENT_ID = '987654321';
const ABSENT_CONFIGURATION = 'Zz9Zz9Zz9Zz9';

let database: TestDatabase;
let t: TestApp;
/** The same database behind a trusted proxy (TRUST_PROXY=1). */
let proxied: TestApp;
let b: TestTenant;
let userA: { id: string; token: string };
let userB: { id: string; token: string };

const json = (res: RawResponse) => res.json();

/** A response as a client sees it, without what differs per request (Date; X-Request-Id is sent). */
function observable(res: RawResponse) {
  const { date: _date, ...headers } = res.headers;
  return { status: res.status, headers, body: res.text };
}

function product(name: string, sku: string) {
  return {
    name,
    sku,
    steps: [
      {
        name: 'Finish',
        order: 1,
        components: [{ name: 'Colour', position: 1, customisations: [{ name: 'Red', type: 'colour', price: 3 }] }],
      },
    ],
  };
}

async function hits(app: TestApp): Promise<number> {
  const metric = app.app.metrics.registry.getSingleMetric('graphql_response_cache_hits_total');
  return (await metric!.get()).values[0]?.value ?? 0;
}

beforeAll(async () => {
  database = await createTestDatabase();
  t = await startTestApp({ database, env: { CONFIGURATION_SAVES_PER_MINUTE: '1000', PASSWORD_HASH_CONCURRENCY: '1' } });
  proxied = await startTestApp({ database, env: { TRUST_PROXY: '1' } });
});
afterAll(async () => {
  await proxied?.close();
  await t?.close();
  await database?.drop();
});

describe('while no tenant has a host', () => {
  it("answers every Host as the default tenant's", async () => {
    const user = await t.createUser();
    const token = (await loginAt(t.url, 'anything.example', user.email, user.password)).json().data.token as string;
    for (const host of ['anything.example', 'localhost:4000', 'OTHER.EXAMPLE', `127.0.0.1:${new URL(t.url).port}`]) {
      const res = await graphqlAt(t.url, host, token, ME);
      expect(res.status, host).toBe(200);
      expect(json(res).data.me.user.id).toBe(user.id);
    }
  });
});

describe('once tenants have hosts', () => {
  beforeAll(async () => {
    await addHosts(database.handle.db, DEFAULT_TENANT_ID, [A]);
    b = await createTenant(database.handle.db, { hosts: [B] });
    await createTenant(database.handle.db, { hosts: [SUSPENDED], state: 'suspended' });
    await untilRouted([t, proxied], NOBODY, 404);
    await untilRouted([t, proxied], B, 401);
    userA = await userAt(t, DEFAULT_TENANT_ID, A, { isAdmin: true });
    userB = await userAt(t, b.id, B, { isAdmin: true });
  });

  it('answers an unknown host 404 on REST and GraphQL, and the probes still answer', async () => {
    const unknown = { success: false, message: 'Unknown host.' };
    const requests: [string, string, unknown?][] = [
      ['POST', '/api/v1/login', { email: 'x@example.com', password: 'secret-password' }],
      ['GET', '/api/v1/tokens'],
      ['POST', '/graphql', { query: '{ __typename }' }],
      ['GET', '/graphql?query=%7B__typename%7D'],
      ['GET', '/'],
    ];
    for (const [method, path, body] of requests) {
      const res = await atHost(t.url, NOBODY, path, { method, body, token: userA.token });
      expect({ path, status: res.status, body: json(res) }).toEqual({ path, status: 404, body: unknown });
    }
    for (const path of ['/health', '/ready']) expect((await atHost(t.url, NOBODY, path)).status, path).toBe(200);
  });

  it('answers a suspended tenant 403', async () => {
    const suspended = { success: false, message: 'This service is suspended.' };
    for (const [method, path] of [
      ['POST', '/graphql'],
      ['GET', '/api/v1/tokens'],
      ['POST', '/api/v1/login'],
    ] as const) {
      const res = await atHost(t.url, SUSPENDED, path, { method, body: method === 'POST' ? {} : undefined });
      expect({ path, status: res.status, body: json(res) }).toEqual({ path, status: 403, body: suspended });
    }
    // And back when it resumes.
    await setTenantState(database.handle.db, b.id, 'suspended');
    await untilRouted([t], B, 403);
    expect(json(await graphqlAt(t.url, B, userB.token, ME))).toEqual(suspended);
    await setTenantState(database.handle.db, b.id, 'active');
    await untilRouted([t], B, 401);
    expect(json(await graphqlAt(t.url, B, userB.token, ME)).data.me.user.id).toBe(userB.id);
  });

  it('maps a Host with a port, in capitals, to its tenant', async () => {
    for (const host of ['B.Routing.Test:8443', 'b.routing.test:80', 'B.ROUTING.TEST']) {
      const res = await graphqlAt(t.url, host, userB.token, ME);
      expect(res.status, host).toBe(200);
      expect(json(res).data.me.user.id).toBe(userB.id);
    }
  });

  it('honours X-Forwarded-Host only behind a trusted proxy', async () => {
    const forwardedToB = { 'x-forwarded-host': B };
    // Not trusted: the Host header decides, A's token works and B's is unknown there.
    expect((await graphqlAt(t.url, A, userA.token, ME, undefined, forwardedToB)).status).toBe(200);
    expect((await graphqlAt(t.url, A, userB.token, ME, undefined, forwardedToB)).status).toBe(401);
    expect((await graphqlAt(t.url, NOBODY, userB.token, ME, undefined, forwardedToB)).status).toBe(404);
    // Trusted: the forwarded host decides.
    const res = await graphqlAt(proxied.url, NOBODY, userB.token, ME, undefined, forwardedToB);
    expect(res.status).toBe(200);
    expect(json(res).data.me.user.id).toBe(userB.id);
    expect((await graphqlAt(proxied.url, NOBODY, userA.token, ME, undefined, forwardedToB)).status).toBe(401);
    expect((await graphqlAt(proxied.url, B, userB.token, ME, undefined, { 'x-forwarded-host': NOBODY })).status).toBe(
      404,
    );
  });

  it("answers a token of tenant A on tenant B's host exactly as an unknown token", async () => {
    // A's token is verified, and cached, on A's host first.
    for (let i = 0; i < 2; i++) expect((await graphqlAt(t.url, A, userA.token, ME)).status).toBe(200);
    const [id, secret] = userA.token.split('|') as [string, string];
    const unknownToken = `${ABSENT_ID}|${secret}`;
    const wrongSecret = `${id}|${'x'.repeat(secret.length)}`;
    const headers = { 'x-request-id': 'same-request-id-for-all' };
    for (const ask of [
      (token: string) => graphqlAt(t.url, B, token, ME, undefined, headers),
      (token: string) => atHost(t.url, B, '/api/v1/tokens', { token, headers }),
      (token: string) => atHost(t.url, B, '/api/v1/logout', { method: 'POST', token, headers }),
    ]) {
      const foreign = await ask(userA.token);
      expect(foreign.status).toBe(401);
      expect(foreign.text).toContain('Unauthenticated.');
      expect(observable(foreign)).toEqual(observable(await ask(unknownToken)));
      expect(observable(foreign)).toEqual(observable(await ask(wrongSecret)));
    }
    // The logout on B's host revoked nothing of A's.
    expect((await graphqlAt(t.url, A, userA.token, ME)).status).toBe(200);
  });

  it('logs the same email in as a different user in each tenant', async () => {
    const email = 'same.person@example.com';
    const inA = await userAt(t, DEFAULT_TENANT_ID, A, { email, password: 'password-of-a-0123' });
    const inB = await userAt(t, b.id, B, { email, password: 'password-of-b-0123' });
    expect(inA.id).not.toBe(inB.id);
    expect(json(await graphqlAt(t.url, A, inA.token, ME)).data.me.user).toEqual({ id: inA.id, email });
    expect(json(await graphqlAt(t.url, B, inB.token, ME)).data.me.user).toEqual({ id: inB.id, email });
    // Each password opens its own tenant only; the other's answers as a wrong one.
    const wrong = await loginAt(t.url, A, email, 'password-of-b-0123');
    expect({ status: wrong.status, body: json(wrong) }).toEqual({
      status: 401,
      body: { success: false, message: 'Invalid credentials.' },
    });
    expect((await loginAt(t.url, B, email, 'password-of-a-0123')).status).toBe(401);
    // At once, past the hashing bound (one at a time here): queued logins run in their own tenant.
    const logins = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        i % 2 === 0 ? loginAt(t.url, A, email, 'password-of-a-0123') : loginAt(t.url, B, email, 'password-of-b-0123'),
      ),
    );
    expect(logins.map((res) => String(json(res).data.user.id))).toEqual(
      [inA, inB, inA, inB, inA, inB].map((u) => u.id),
    );
  });

  describe("another tenant's catalogue and saved configurations", () => {
    let productA: string;
    let productB: string;
    let customisationB: string;
    let savedB: string;

    beforeAll(async () => {
      const a = json(await graphqlAt(t.url, A, userA.token, CREATE, { input: product('Lamp of A', 'SHARED-1') }));
      const bb = json(await graphqlAt(t.url, B, userB.token, CREATE, { input: product('Lamp of B', 'SHARED-1') }));
      expect(a.errors).toBeUndefined();
      expect(bb.errors).toBeUndefined();
      productA = a.data.createProduct.id;
      productB = bb.data.createProduct.id;
      customisationB = bb.data.createProduct.steps[0].components[0].customisations[0].id;
      const saved = json(await graphqlAt(t.url, B, userB.token, SAVE, { p: productB, s: [] }));
      expect(saved.errors).toBeUndefined();
      savedB = saved.data.saveConfiguration.id;
    });

    it('lets two tenants have the same sku, each reading its own', async () => {
      expect(productA).not.toBe(productB);
      expect(json(await graphqlAt(t.url, A, userA.token, BY_SKU, { sku: 'SHARED-1' })).data.productBySku).toEqual({
        id: productA,
        name: 'Lamp of A',
        sku: 'SHARED-1',
      });
      expect(json(await graphqlAt(t.url, B, userB.token, BY_SKU, { sku: 'SHARED-1' })).data.productBySku).toEqual({
        id: productB,
        name: 'Lamp of B',
        sku: 'SHARED-1',
      });
      // Taken within one tenant, as before tenants.
      const taken = json(await graphqlAt(t.url, B, userB.token, CREATE, { input: product('Other', 'SHARED-1') }));
      expect(taken.errors[0].extensions).toMatchObject({
        code: 'BAD_USER_INPUT',
        validation: { 'input.sku': ['The sku has already been taken.'] },
      });
    });

    it("answers product(id) of another tenant's product null, as an absent one", async () => {
      const foreign = await graphqlAt(t.url, A, userA.token, PRODUCT, { id: productB });
      expect(json(foreign)).toEqual({ data: { product: null } });
      expect(masked(foreign, productB)).toEqual(
        masked(await graphqlAt(t.url, A, userA.token, PRODUCT, { id: ABSENT_ID }), ABSENT_ID),
      );
    });

    it("answers configure, saveConfiguration and updateProduct on another tenant's product as on an absent one", async () => {
      const cases: [string, string, (id: string) => Record<string, unknown>][] = [
        [CONFIGURE, productB, (id) => ({ p: id, s: [] })],
        [CONFIGURE, customisationB, (id) => ({ p: productA, s: [{ customisationId: id }] })],
        [SAVE, productB, (id) => ({ p: id, s: [] })],
        [RENAME, productB, (id) => ({ id, name: 'Hijacked' })],
      ];
      for (const [query, foreignId, variables] of cases) {
        const foreign = await graphqlAt(t.url, A, userA.token, query, variables(foreignId));
        const absent = await graphqlAt(t.url, A, userA.token, query, variables(ABSENT_ID));
        expect(masked(foreign, foreignId)).toEqual(masked(absent, ABSENT_ID));
      }
      const configure = json(await graphqlAt(t.url, A, userA.token, CONFIGURE, { p: productB, s: [] }));
      expect(configure).toEqual({ data: { configure: null } });
      const save = json(await graphqlAt(t.url, A, userA.token, SAVE, { p: productB, s: [] }));
      expect(save.errors[0].extensions.code).toBe('NOT_FOUND');
      // Nothing of B's changed.
      expect(json(await graphqlAt(t.url, B, userB.token, BY_SKU, { sku: 'SHARED-1' })).data.productBySku.name).toBe(
        'Lamp of B',
      );
    });

    it("answers another tenant's saved configuration as an absent one: null, and NOT_FOUND to delete", async () => {
      const read = await graphqlAt(t.url, A, userA.token, SAVED, { id: savedB });
      expect(json(read)).toEqual({ data: { configuration: null } });
      expect(masked(read, savedB)).toEqual(
        masked(await graphqlAt(t.url, A, userA.token, SAVED, { id: ABSENT_CONFIGURATION }), ABSENT_CONFIGURATION),
      );
      const deleted = await graphqlAt(t.url, A, userA.token, DELETE_SAVED, { id: savedB });
      expect(json(deleted).errors[0].extensions.code).toBe('NOT_FOUND');
      expect(masked(deleted, savedB)).toEqual(
        masked(
          await graphqlAt(t.url, A, userA.token, DELETE_SAVED, { id: ABSENT_CONFIGURATION }),
          ABSENT_CONFIGURATION,
        ),
      );
      expect(json(await graphqlAt(t.url, B, userB.token, SAVED, { id: savedB })).data.configuration).toEqual({
        id: savedB,
        productId: productB,
      });
    });

    it("keeps B's cached answer through a write in A, and A reads its write at once", async () => {
      const read = () => graphqlAt(t.url, B, userB.token, BY_SKU, { sku: 'SHARED-1' });
      // Cached on B's side: asked until one answer is a hit (an earlier write's notification may still land).
      let hit = false;
      for (let attempt = 0; attempt < 20 && !hit; attempt++) {
        await read();
        const before = await hits(t);
        await read();
        hit = (await hits(t)) === before + 1;
      }
      expect(hit).toBe(true);
      const cached = (await read()).text;

      for (let i = 0; i < 3; i++) {
        const name = `Lamp of A, edition ${i}`;
        const renamed = json(await graphqlAt(t.url, A, userA.token, RENAME, { id: productA, name }));
        expect(renamed.errors).toBeUndefined();
        expect(json(await graphqlAt(t.url, A, userA.token, BY_SKU, { sku: 'SHARED-1' })).data.productBySku.name).toBe(
          name,
        );
        // The rename's notification has reached this instance (A's answer waited for it): B's entry stayed.
        t.database.queries.reset();
        const before = await hits(t);
        expect((await read()).text).toBe(cached);
        expect(await hits(t)).toBe(before + 1);
        expect(t.database.queries.statements.filter((s) => /products/.test(s))).toEqual([]);
      }
    });

    it('answers the same request from both tenants at once each with its own product', async () => {
      // Not cached yet, so identical requests in flight together: single flight and pooled connections
      // serve both tenants, their answers must not cross.
      for (let round = 0; round < 3; round++) {
        const query = `query Together${round} { productBySku(sku: "SHARED-1") { id sku } }`;
        const answers = await Promise.all(
          Array.from({ length: 20 }, (_, i) =>
            i % 2 === 0 ? graphqlAt(t.url, A, userA.token, query) : graphqlAt(t.url, B, userB.token, query),
          ),
        );
        expect(answers.map((res) => json(res).data.productBySku.id)).toEqual(
          answers.map((_, i) => (i % 2 === 0 ? productA : productB)),
        );
      }
    });
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedCatalog } from '../../db/seeds/catalog.ts';
import { startTestApp, type TestApp } from '../support/app.ts';

// A stored answer is sent before Yoga runs (src/graphql/response-cache/serve.ts). A client cannot tell:
// the same status, headers and bytes as the answer Yoga sent when it executed, whatever it accepts;
// and only a request identical to the one that was answered, by a caller with the same scopes.

const QUERY = 'query One($id: ID!) { product(id: $id) { id name steps { id components { id } } } }';
const ACCEPTS = [
  undefined,
  '*/*',
  'application/json',
  'application/graphql-response+json',
  'application/graphql-response+json, application/json',
  'application/json, application/graphql-response+json',
  'application/json; charset=utf-8',
  'text/html, */*;q=0.8',
];

describe('answers sent from the response cache without entering Yoga', () => {
  let t: TestApp;
  let reader: string;
  let productId: string;

  const post = async (accept: string | undefined, body: unknown, token = reader) => {
    t.database.queries.reset();
    const res = await fetch(`${t.url}/graphql`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        authorization: `Bearer ${token}`,
        ...(accept === undefined ? {} : { accept }),
      },
      body: JSON.stringify(body),
    });
    const headers = Object.fromEntries(
      [...res.headers].filter(([name]) => !['date', 'x-request-id', 'keep-alive', 'connection'].includes(name)),
    );
    return {
      status: res.status,
      headers,
      text: await res.text(),
      statements: t.database.queries.statements.filter((s) => !/personal_access_tokens/.test(s)).length,
    };
  };

  beforeAll(async () => {
    t = await startTestApp();
    await seedCatalog(t.database.handle.db, {
      products: 3,
      seed: 2,
      shape: { steps: 2, components: 2, customisations: 1 },
    });
    const u = await t.createUser();
    reader = await t.login(u.email, u.password);
    productId = (await t.graphql('{ products(first: 1) { data { id } } }', { token: reader })).body.data.products
      .data[0].id;
  });
  afterAll(() => t?.close());

  it('sends the same status, headers and bytes Yoga sent, for every Accept, without a statement', async () => {
    for (const [i, accept] of ACCEPTS.entries()) {
      // A document of its own per Accept: the first answer is Yoga's, executed.
      const body = { query: `${QUERY} # ${i}`, variables: { id: productId }, operationName: 'One' };
      const executed = await post(accept, body);
      expect(executed.statements, String(accept)).toBeGreaterThan(0);
      const stored = await post(accept, body);
      expect(stored.statements, String(accept)).toBe(0);
      expect(stored, String(accept)).toEqual({ ...executed, statements: 0 });
    }
  });

  it('answers only the identical request: other variables, another body shape or other scopes execute', async () => {
    const body = { query: QUERY, variables: { id: productId } };
    await post('application/json', body);
    expect((await post('application/json', body)).statements).toBe(0);
    // Another key order in variables is another request.
    expect((await post('application/json', { ...body, variables: { id: productId, x: 1 } })).status).toBe(200);
    // A parameter Yoga refuses is refused as before, never answered from the store.
    const odd = await post('application/json', { ...body, unexpected: true });
    expect(odd.status).toBe(400);
    // Another caller's scopes: executed (and refused) for a token that may not read.
    const u = await t.createUser();
    const login = await fetch(`${t.url}/api/v1/tokens`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${reader}` },
      body: JSON.stringify({ name: 'no abilities', abilities: [] }),
    });
    const narrow = ((await login.json()) as { data: { token: string } }).data.token;
    expect(u.id).toBeTruthy();
    const refused = await post('application/json', body, narrow);
    expect(refused.text).toContain('FORBIDDEN');
  });
});

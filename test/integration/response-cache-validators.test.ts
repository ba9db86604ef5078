import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedCatalog } from '../../db/seeds/catalog.ts';
import { startTestApp, type TestApp } from '../support/app.ts';

// Issue 30 item 5: any token sending any body with the ETag of an answer cached for someone else got
// 304, so guessing a customer's configure text told right from wrong. A 304 now answers only the
// caller's own request, with the validator of the bytes it would get.

const PRODUCT = 'query ($id: ID!) { product(id: $id) { id name steps { id name } } }';

describe('the response cache’s validators', () => {
  let t: TestApp;
  let reader: string;
  let productId: string;

  const post = (token: string, query: string, variables: unknown, headers: Record<string, string> = {}) =>
    fetch(`${t.url}/graphql`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/graphql-response+json, application/json',
        authorization: `Bearer ${token}`,
        ...headers,
      },
      body: JSON.stringify({ query, variables }),
    });

  beforeAll(async () => {
    t = await startTestApp();
    await seedCatalog(t.database.handle.db, { products: 3, seed: 3 });
    const u = await t.createUser();
    reader = await t.login(u.email, u.password);
    productId = (await t.graphql('{ products(first: 1) { data { id } } }', { token: reader })).body.data.products
      .data[0].id;
  });
  afterAll(() => t?.close());

  /** A token of another user with no ability at all. */
  async function tokenWithoutAbilities() {
    const u = await t.createUser();
    const token = await t.login(u.email, u.password);
    await sql`UPDATE personal_access_tokens SET abilities = '[]'::jsonb WHERE id = ${token.split('|')[0]}`.execute(
      t.database.handle.db,
    );
    return token;
  }

  it('answers the caller’s own request with 304 for its ETag, and nobody else’s', async () => {
    await post(reader, PRODUCT, { id: productId });
    const cached = await post(reader, PRODUCT, { id: productId });
    const etag = cached.headers.get('etag')!;
    const again = await post(reader, PRODUCT, { id: productId }, { 'if-none-match': etag });
    expect(again.status).toBe(304);
    expect(again.headers.get('etag')).toBe(etag);

    const stranger = await tokenWithoutAbilities();
    for (const [query, variables] of [
      [PRODUCT, { id: productId }],
      ['{ products(first: 1) { data { id } } }', undefined],
      ['query ($id: ID!) { configure(productId: $id, selections: []) { valid } }', { id: productId }],
    ] as const) {
      const probe = await post(stranger, query, variables, { 'if-none-match': etag });
      expect(probe.status, query).not.toBe(304);
      expect(await probe.text(), query).toContain('FORBIDDEN');
    }
    // The caller's ETag on another of its own requests: that answer, in full.
    const other = await post(reader, '{ products(first: 1) { data { id } } }', undefined, { 'if-none-match': etag });
    expect(other.status).toBe(200);
    // A validator of the bytes, quoted as RFC 9110 has it: not the cache key, which anyone can compute.
    expect(etag).toMatch(/^"[\w-]+"$/);
  });

  it('a 304 tells nothing of what is stored: a right and a wrong guess of another caller’s text answer alike', async () => {
    const configure = (text: string) =>
      [
        'query ($id: ID!, $s: [SelectionInput!]!) { configure(productId: $id, selections: $s) { valid } }',
        { id: productId, s: [{ customisationId: '1', value: text }] },
      ] as const;
    // A customer's request, stored for everyone with the same abilities.
    await post(reader, ...configure('For Anna, love Bob'));
    const etag = (await post(reader, ...configure('For Anna, love Bob'))).headers.get('etag')!;
    expect(etag).toBeTruthy();
    const u = await t.createUser();
    const guesser = await t.login(u.email, u.password);
    const right = await post(guesser, ...configure('For Anna, love Bob'), { 'if-none-match': etag });
    const wrong = await post(guesser, ...configure('For Anne, love Rob'), { 'if-none-match': etag });
    // Both answers are the same bytes, so both are 304: the validator of the answer, not of the cache.
    expect([right.status, wrong.status]).toEqual([304, 304]);
  });

  it('an ETag names the bytes: after a change, the old one gets the new answer', async () => {
    await post(reader, PRODUCT, { id: productId });
    const before = await post(reader, PRODUCT, { id: productId });
    const etag = before.headers.get('etag')!;
    await sql`UPDATE products SET name = 'Renamed for validators' WHERE id = ${productId}`.execute(
      t.database.handle.db,
    );
    const deadline = Date.now() + 1_000;
    let after = await post(reader, PRODUCT, { id: productId }, { 'if-none-match': etag });
    while (after.status === 304 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 10));
      after = await post(reader, PRODUCT, { id: productId }, { 'if-none-match': etag });
    }
    expect(after.status).toBe(200);
    expect((await after.json()).data.product.name).toBe('Renamed for validators');
    expect(after.headers.get('etag')).not.toBe(etag);
  });
});

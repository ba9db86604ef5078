import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.ts';
import { adminAndUserTokens, mutate } from '../support/catalog-writes.ts';
import { postGraphQL, type RawResponse } from '../support/edge.ts';

// Issue 30, item 2: an answer is bounded by what it weighs (GRAPHQL_MAX_ANSWER_BYTES), messages and echoed ids
// included, and refused whole before it is built: 400, one error, no data, nothing cached.

const DEFAULT_BYTES = 4 * 1024 * 1024;
const REFUSED = /^Answer size limit of (\d+) bytes exceeded, found at least (\d+)\./;

const CREATE = `mutation ($input: CreateProductInput!) {
  createProduct(input: $input) { id steps { components { customisations { id } } } } }`;
const SAVE = `mutation ($productId: ID!, $selections: [SelectionInput!]!) {
  saveConfiguration(productId: $productId, selections: $selections) { id } }`;

/** `n` distinct ids of `length` characters that name no customisation. */
const unknownIds = (n: number, length: number) => Array.from({ length: n }, (_, i) => String(i).padStart(length, 'x'));

/** `aliases` aliased copies of one field, sharing the operation's variables. */
const aliased = (aliases: number, field: string) =>
  Array.from({ length: aliases }, (_, i) => `a${i}: ${field}`).join('\n');

/** A product of steps × components × customisations, every component taking any number of choices. */
function openProduct(sku: string, shape: { steps: number; components: number; customisations: number }, type: string) {
  return {
    name: `Product ${sku}`,
    sku,
    steps: Array.from({ length: shape.steps }, (_, s) => ({
      name: `Step "${s}" é橡🪵\\`,
      order: s,
      components: Array.from({ length: shape.components }, (_, c) => ({
        name: `Component ${s}.${c}\t«ü»`,
        position: c,
        maxSelections: null,
        customisations: Array.from({ length: shape.customisations }, (_, x) => ({
          name: `Option ${s}.${c}.${x} "ø" ${'ж'.repeat(x % 7)}`,
          type,
          price: x + 0.25,
        })),
      })),
    })),
  };
}

const customisationIds = (created: any): string[] =>
  created.createProduct.steps.flatMap((s: any) =>
    s.components.flatMap((c: any) => c.customisations.map((x: any) => x.id)),
  );

function expectRefused(res: RawResponse, limit: number) {
  expect(res.status).toBe(400);
  expect(res.body.data).toBeUndefined();
  expect(res.body.errors).toHaveLength(1);
  expect(res.body.errors[0].extensions.code).toBe('GRAPHQL_VALIDATION_FAILED');
  const [, max, found] = REFUSED.exec(res.body.errors[0].message) ?? [];
  expect(Number(max)).toBe(limit);
  expect(Number(found)).toBeGreaterThan(limit);
  // Nothing of the answer: the refusal alone.
  expect(Buffer.byteLength(res.text)).toBeLessThan(1_000);
}

const noErrorLines = (t: TestApp, from: number) =>
  expect(t.logs.lines.slice(from).filter((l) => JSON.parse(l).level >= 50)).toEqual([]);

describe(`the answer bound in bytes (GRAPHQL_MAX_ANSWER_BYTES, default ${DEFAULT_BYTES})`, () => {
  let t: TestApp;
  let admin: string;
  let user: string;
  let readOnly: string;
  let small: { id: string; customisations: string[] };
  let large: { id: string; customisations: string[] };

  beforeAll(async () => {
    t = await startTestApp();
    ({ admin, user } = await adminAndUserTokens(t));
    const minted = await fetch(`${t.url}/api/v1/tokens`, {
      method: 'POST',
      headers: { authorization: `Bearer ${user}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'storefront', abilities: ['catalog:read'] }),
    });
    readOnly = ((await minted.json()) as { data: { token: string } }).data.token;
    const one = await mutate(t, admin, CREATE, {
      input: openProduct('small', { steps: 2, components: 2, customisations: 3 }, 'colour'),
    });
    small = { id: one.createProduct.id, customisations: customisationIds(one) };
    // 1,000 customisations that take a customer's text: the largest selection a request may send.
    const many = await mutate(t, admin, CREATE, {
      input: openProduct('large', { steps: 10, components: 10, customisations: 10 }, 'text'),
    });
    large = { id: many.createProduct.id, customisations: customisationIds(many) };
  }, 60_000);
  afterAll(() => t?.close());

  it("refuses the issue's configure flood (15 aliases × 1,000 distinct 1,000-character ids, read-only token) whole, every time", async () => {
    const query = `query ($p: ID!, $s: [SelectionInput!]!) {
      ${aliased(15, 'configure(productId: $p, selections: $s) { valid violations { code message customisationId } price { total { amount } } }')}
    }`;
    const variables = { p: small.id, s: unknownIds(1000, 1000).map((customisationId) => ({ customisationId })) };
    expect(JSON.stringify({ query, variables }).length).toBeGreaterThan(1_000_000);
    const before = t.logs.lines.length;
    for (let attempt = 0; attempt < 2; attempt++) {
      // The second time too: a refusal is never an answer the response cache keeps.
      expectRefused(await postGraphQL(t, readOnly, { query, variables }), DEFAULT_BYTES);
    }
    noErrorLines(t, before);
    // One alias of it weighs about 2 MB: it fits, and says what it found.
    const one = await postGraphQL(t, readOnly, {
      query: `query ($p: ID!, $s: [SelectionInput!]!) { configure(productId: $p, selections: $s) { violations { customisationId message } } }`,
      variables,
    });
    expect(one.status).toBe(200);
    expect(one.body.data.configure.violations).toHaveLength(1000);
    expect(Buffer.byteLength(one.text)).toBeGreaterThan(2_000_000);
  });

  it('answers a legitimate large configure: 1,000 choices with their text, every line named', async () => {
    const selections = large.customisations.map((customisationId, i) => ({ customisationId, value: `Text ${i}` }));
    const res = await postGraphQL(t, readOnly, {
      query: `query ($p: ID!, $s: [SelectionInput!]!) { configure(productId: $p, selections: $s) {
        valid violations { code } price { lines { customisationId name amount { amount currency } customisation { id name type } } total { amount } } } }`,
      variables: { p: large.id, s: selections },
    });
    expect(res.status).toBe(200);
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.configure.valid).toBe(true);
    expect(res.body.data.configure.price.lines).toHaveLength(1000);
    expect(res.body.data.configure.price.lines[999].customisation.id).toBe(large.customisations.at(-1));
  });

  it('bounds configuration(id): a saved 1,000-choice configuration answers once, not in 15 aliases', async () => {
    const value = 'v'.repeat(800);
    const selections = large.customisations.map((customisationId) => ({ customisationId, value }));
    const saved = await mutate(t, user, SAVE, { productId: large.id, selections });
    const field = (id: string) =>
      `configuration(id: "${id}") { selections { value } price { lines { name } } currentPrice { lines { name } } }`;
    const id = saved.saveConfiguration.id;
    const once = await postGraphQL(t, readOnly, { query: `{ ${field(id)} }` });
    expect(once.status).toBe(200);
    expect(once.body.data.configuration.selections).toHaveLength(1000);
    expect(Buffer.byteLength(once.text)).toBeGreaterThan(800_000);
    const before = t.logs.lines.length;
    expectRefused(await postGraphQL(t, readOnly, { query: `{ ${aliased(15, field(id))} }` }), DEFAULT_BYTES);
    noErrorLines(t, before);
  });
});

describe('what is weighed is what is sent', () => {
  let t: TestApp;
  let admin: string;
  let user: string;
  let productId: string;
  let sent: number;
  const others: TestApp[] = [];
  const FULL = `{ product(id: "$id") { id name steps { id name order required createdAt components { id name position
    minSelections maxSelections updatedAt customisations { __typename id name type price priceMode createdAt } } } } }`;

  beforeAll(async () => {
    t = await startTestApp();
    ({ admin, user } = await adminAndUserTokens(t));
    const created = await mutate(t, admin, CREATE, {
      input: openProduct('weighed', { steps: 4, components: 5, customisations: 6 }, 'colour'),
    });
    productId = created.createProduct.id;
    const res = await postGraphQL(t, user, { query: FULL.replace('$id', productId) });
    expect(res.status).toBe(200);
    sent = Buffer.byteLength(res.text);
  });
  afterAll(async () => {
    for (const other of others) await other.close();
    await t?.close();
  });

  /** The same database, another bound. */
  async function boundedAt(bytes: number): Promise<TestApp> {
    const other = await startTestApp({ database: t.database, env: { GRAPHQL_MAX_ANSWER_BYTES: String(bytes) } });
    others.push(other);
    return other;
  }

  it('a full-depth read (escapes, accents, emoji) is answered at the size it sends, refused 1% below it', async () => {
    expect(sent).toBeGreaterThan(20_000);
    const query = FULL.replace('$id', productId);
    const exact = await boundedAt(sent);
    const fits = await postGraphQL(exact, user, { query });
    expect(fits.status).toBe(200);
    expect(Buffer.byteLength(fits.text)).toBe(sent);
    const under = Math.floor(sent * 0.99);
    expectRefused(await postGraphQL(await boundedAt(under), user, { query }), under);
  });

  it("saveConfiguration's violations are weighed before they are sent; nothing is saved", async () => {
    const bounded = await boundedAt(1_000_000);
    const selections = unknownIds(1000, 1000).map((customisationId) => ({ customisationId }));
    const res = await postGraphQL(bounded, user, { query: SAVE, variables: { productId, selections } });
    expectRefused(res, 1_000_000);
    const { rows } = await sql<{ n: number }>`SELECT count(*)::int AS n FROM configurations`.execute(
      t.database.handle.db,
    );
    expect(rows[0]!.n).toBe(0);
    // The same mistake on a few ids is the usual BAD_USER_INPUT with every violation.
    const few = await postGraphQL(bounded, user, {
      query: SAVE,
      variables: { productId, selections: selections.slice(0, 3) },
    });
    expect(few.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
    expect(few.body.errors[0].extensions.violations).toHaveLength(3);
  });
});

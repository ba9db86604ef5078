import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedCatalog } from '../../db/seeds/catalog.ts';
import { encodeCursor } from '../../src/modules/catalog/pagination.ts';
import { startTestApp, type TestApp } from '../support/app.ts';
import { countRows, expectOnlyTokenLookup, postGraphQL, tokenFor } from '../support/edge.ts';

let t: TestApp;
let token: string;
let before: Record<string, number>;
let endCursor: string;

beforeAll(async () => {
  t = await startTestApp();
  token = await tokenFor(t);
  await seedCatalog(t.app.database.db, {
    products: 5,
    seed: 11,
    shape: { steps: 1, components: 1, customisations: 1 },
  });
  const page = await postGraphQL(t, token, { query: '{ products(first: 2) { paginatorInfo { endCursor } } }' });
  endCursor = page.body.data.products.paginatorInfo.endCursor;
  before = await countRows(t);
});
afterAll(async () => {
  // Nothing any hostile argument did changed a table.
  expect(await countRows(t)).toEqual(before);
  await t.close();
});

const HOSTILE_IDS: Array<[string, string]> = [
  ['letters', 'abc'],
  ['SQL', '1 OR 1=1'],
  ['a quote and a comment', "1'; DROP TABLE products; --"],
  ['a number beyond bigint', '99999999999999999999'],
  ['a negative number', '-1'],
  ['a 10 KB string', '9'.repeat(10 * 1024)],
  ['an empty string', ''],
];

describe('product(id:) with hostile ids', () => {
  it.each(HOSTILE_IDS)('%s, as a variable, is null without touching the database', async (_name, id) => {
    t.database.queries.reset();
    const res = await postGraphQL(t, token, {
      query: 'query ($id: ID!) { product(id: $id) { id name } }',
      variables: { id },
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: { product: null } });
    expectOnlyTokenLookup(t);
  });

  it.each(HOSTILE_IDS)('%s, as a literal, is null', async (_name, id) => {
    const res = await postGraphQL(t, token, { query: `{ product(id: ${JSON.stringify(id)}) { id name } }` });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: { product: null } });
  });

  it('an integer literal beyond bigint is null too', async () => {
    const res = await postGraphQL(t, token, { query: '{ product(id: 99999999999999999999) { id } }' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: { product: null } });
  });
});

describe('products(first:) out of range or of the wrong type', () => {
  const query = 'query ($first: Int!) { products(first: $first) { data { id } } }';

  it.each([
    [0, 'Requested page size must be at least 1, got 0.'],
    [-1, 'Requested page size must be at least 1, got -1.'],
    [101, 'Maximum number of 100 requested items exceeded, got 101. Fetch smaller chunks.'],
    [500, 'Maximum number of 100 requested items exceeded, got 500. Fetch smaller chunks.'],
    [2 ** 31 - 1, 'Maximum number of 100 requested items exceeded, got 2147483647. Fetch smaller chunks.'],
  ])('first: %s is BAD_USER_INPUT with the paginator’s message, before any SQL', async (first, message) => {
    for (const payload of [
      { query, variables: { first } },
      { query: `{ products(first: ${first}) { data { id } } }` },
    ]) {
      t.database.queries.reset();
      const res = await postGraphQL(t, token, payload);
      expect(res.status).toBe(200);
      expect(res.body.data).toBeNull();
      expect(res.body.errors).toEqual([
        expect.objectContaining({ message, path: ['products'], extensions: { code: 'BAD_USER_INPUT' } }),
      ]);
      expectOnlyTokenLookup(t);
    }
  });

  it.each([
    ['a string', '10', 'Int cannot represent non-integer value: "10"'],
    ['a fraction', 1.5, 'Int cannot represent non-integer value: 1.5'],
    ['2^31', 2 ** 31, 'Int cannot represent non 32-bit signed integer value: 2147483648'],
    ['null', null, 'Variable "$first" of non-null type "Int!" must not be null.'],
  ])('first as %s in variables is BAD_USER_INPUT', async (_name, first, detail) => {
    t.database.queries.reset();
    const res = await postGraphQL(t, token, { query, variables: { first } });
    expect(res.status).toBe(400);
    expect(res.body.data).toBeUndefined();
    expect(res.body.errors).toHaveLength(1);
    expect(res.body.errors[0].message).toContain(detail);
    expect(res.body.errors[0].extensions).toEqual({ code: 'BAD_USER_INPUT' });
    expectOnlyTokenLookup(t);
  });

  it.each([
    ['a string', '"10"', 'Int cannot represent non-integer value: "10"'],
    ['a fraction', '1.5', 'Int cannot represent non-integer value: 1.5'],
    ['2^31', '2147483648', 'Int cannot represent non 32-bit signed integer value: 2147483648'],
  ])('first as %s in the document is a validation error', async (_name, literal, message) => {
    t.database.queries.reset();
    const res = await postGraphQL(t, token, { query: `{ products(first: ${literal}) { data { id } } }` });
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([
      expect.objectContaining({ message, extensions: { code: 'GRAPHQL_VALIDATION_FAILED' } }),
    ]);
    expectOnlyTokenLookup(t);
  });
});

describe('products(after:) with cursors we did not issue', () => {
  const tampered = () => {
    // Flip one character of a real cursor.
    const i = Math.floor(endCursor.length / 2);
    return endCursor.slice(0, i) + (endCursor[i] === 'A' ? 'B' : 'A') + endCursor.slice(i + 1);
  };

  it('a real cursor works (the control)', async () => {
    const res = await postGraphQL(t, token, {
      query: 'query ($after: String) { products(first: 2, after: $after) { data { id } } }',
      variables: { after: endCursor },
    });
    expect(res.status).toBe(200);
    expect(res.body.data.products.data).toHaveLength(2);
  });

  it.each([
    ['tampered', tampered],
    ['foreign (another kind)', () => encodeCursor('step', '1')],
    ['over-long', () => endCursor.repeat(20)],
    ['not base64', () => '!!!!'],
    ['SQL', () => "1' OR '1'='1"],
    ['a plain offset', () => Buffer.from('2').toString('base64')],
    ['empty', () => ''],
  ])('%s is "Invalid cursor." with BAD_USER_INPUT, before any SQL', async (_name, cursor) => {
    t.database.queries.reset();
    const res = await postGraphQL(t, token, {
      query: 'query ($after: String) { products(first: 2, after: $after) { data { id } } }',
      variables: { after: cursor() },
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      data: null,
      errors: [
        {
          message: 'Invalid cursor.',
          locations: [{ line: 1, column: 26 }],
          path: ['products'],
          extensions: { code: 'BAD_USER_INPUT' },
        },
      ],
    });
    expectOnlyTokenLookup(t);
  });
});

describe('text that cannot round-trip (issue 20): refused before any resolver, wherever it is', () => {
  const message = (attribute: string) =>
    `The ${attribute} field must not contain NUL bytes, unpaired surrogates or Unicode non-characters.`;
  it.each([
    [
      'a NUL in an id variable',
      'query ($id: ID!) { product(id: $id) { id } }',
      { id: '1\u0000' },
      'product',
      { id: [message('id')] },
    ],
    ['a NUL in an id literal', '{ product(id: "1\\u0000") { id } }', {}, 'product', { id: [message('id')] }],
    [
      'a lone surrogate in a cursor',
      'query ($after: String) { products(first: 2, after: $after) { data { id } } }',
      { after: 'x\ud800' },
      'products',
      { after: [message('after')] },
    ],
  ])(
    '%s is BAD_USER_INPUT with the argument named, before any SQL',
    async (_name, query, variables, field, validation) => {
      t.database.queries.reset();
      const res = await postGraphQL(t, token, { query, variables });
      expect(res.body.data).toBeNull();
      expect(res.body.errors).toHaveLength(1);
      expect(res.body.errors[0]).toMatchObject({
        message: `Validation failed for the field [${field}].`,
        path: [field],
        extensions: { code: 'BAD_USER_INPUT', validation },
      });
      expectOnlyTokenLookup(t);
    },
  );
});

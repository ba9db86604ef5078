import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.ts';
import { adminAndUserTokens, catalogSnapshot, mutate, productInput } from '../support/catalog-writes.ts';

// Every rule of the catalogue's input, as an attacker or a careless client would break it: each gets
// BAD_USER_INPUT (or a 4xx before GraphQL runs) with its message at its path, and nothing is written.

let t: TestApp;
let admin: string;
let before: unknown[];

beforeAll(async () => {
  t = await startTestApp();
  ({ admin } = await adminAndUserTokens(t));
  await mutate(t, admin, `mutation ($input: CreateProductInput!) { createProduct(input: $input) { id } }`, {
    input: productInput('TAKEN-1', { steps: 1, components: 1, customisations: 1 }),
  });
  before = await catalogSnapshot(t);
});
afterAll(() => t.close());

const CREATE = `mutation ($input: CreateProductInput!) { createProduct(input: $input) { id } }`;
const tree = (customisation: Record<string, unknown>, step: Record<string, unknown> = {}) => ({
  name: 'Valid name',
  sku: 'NEW-1',
  steps: [
    {
      name: 'Step',
      order: 1,
      components: [
        { name: 'Part', position: 1, customisations: [{ name: 'Opt', type: 'colour', price: 1, ...customisation }] },
      ],
      ...step,
    },
  ],
});
const at = 'input.steps.0.components.0.customisations.0';

async function refused(input: unknown, validation: Record<string, string[]>) {
  const res = await t.graphql(CREATE, { token: admin, variables: { input } });
  expect(res.status).toBe(200);
  expect(res.body.data).toBeNull();
  expect(res.body.errors).toHaveLength(1);
  expect(res.body.errors[0]).toMatchObject({
    message: 'Validation failed for the field [createProduct].',
    path: ['createProduct'],
    extensions: { code: 'BAD_USER_INPUT', validation },
  });
  expect(await catalogSnapshot(t)).toEqual(before);
  return res;
}

describe('each rule, with its message at its path', () => {
  it.each([
    ['a blank name', { ...tree({}), name: '   ' }, { 'input.name': ['The name field is required.'] }],
    [
      'a name of 201 characters',
      { ...tree({}), name: 'x'.repeat(201) },
      { 'input.name': ['The name must not be greater than 200 characters.'] },
    ],
    [
      'a sku with a space',
      { ...tree({}), sku: 'A B' },
      { 'input.sku': ['The sku may only contain letters, numbers, dots, underscores and dashes.'] },
    ],
    [
      'a sku of 65 characters',
      { ...tree({}), sku: 'S'.repeat(65) },
      { 'input.sku': ['The sku must not be greater than 64 characters.'] },
    ],
    ['a taken sku', { ...tree({}), sku: 'TAKEN-1' }, { 'input.sku': ['The sku has already been taken.'] }],
    [
      'a negative order',
      tree({}, { order: -1 }),
      { 'input.steps.0.order': ['The order must be between 0 and 1000000.'] },
    ],
    [
      'an order above 1,000,000',
      tree({}, { order: 1_000_001 }),
      { 'input.steps.0.order': ['The order must be between 0 and 1000000.'] },
    ],
    ['a blank type', tree({ type: '' }), { [`${at}.type`]: ['The type field is required.'] }],
    [
      'a type of 51 characters',
      tree({ type: 't'.repeat(51) }),
      { [`${at}.type`]: ['The type must not be greater than 50 characters.'] },
    ],
    ['a price of 0.295', tree({ price: 0.295 }), { [`${at}.price`]: ['The price must have at most 2 decimals.'] }],
    ['a price of 0.001', tree({ price: 0.001 }), { [`${at}.price`]: ['The price must have at most 2 decimals.'] }],
    [
      'a negative price',
      tree({ price: -0.01 }),
      { [`${at}.price`]: ['The price must be between 0 and 9999999999.99.'] },
    ],
    [
      'a price above the column',
      tree({ price: 10_000_000_000 }),
      { [`${at}.price`]: ['The price must be between 0 and 9999999999.99.'] },
    ],
  ])('refuses %s', async (_, input, validation) => {
    await refused(input, validation);
  });

  it('accepts the edges: 0, 0.29 and 9999999999.99, order 0 and 1,000,000, 200-character names', async () => {
    const input = {
      name: 'n'.repeat(200),
      sku: 'EDGE.1_a-Z',
      steps: [
        {
          name: 'First',
          order: 0,
          components: [
            {
              name: 'C',
              position: 1_000_000,
              customisations: [0, 0.29, 9_999_999_999.99].map((price) => ({ name: 'p', type: 't', price })),
            },
          ],
        },
        { name: 'Last', order: 1_000_000 },
      ],
    };
    const { createProduct } = await mutate(
      t,
      admin,
      CREATE.replace('{ id }', '{ id steps { components { customisations { price } } } }'),
      { input },
    );
    expect(createProduct.steps[0].components[0].customisations.map((c: any) => c.price)).toEqual([
      0, 0.29, 9_999_999_999.99,
    ]);
    await mutate(t, admin, `mutation ($id: ID!) { deleteProduct(id: $id) { id } }`, { id: createProduct.id });
  });

  it('reports every broken rule at once, and a duplicate order at the second step', async () => {
    const input = {
      name: '',
      sku: '',
      steps: [
        { name: 'a', order: 3 },
        { name: '', order: 3 },
      ],
    };
    await refused(input, {
      'input.name': ['The name field is required.'],
      'input.sku': ['The sku field is required.'],
      'input.steps.1.name': ['The name field is required.'],
      'input.steps.1.order': ['The order field has a duplicate value.'],
    });
  });
});

describe('sizes', () => {
  const many = (n: number, make: (i: number) => object) => Array.from({ length: n }, (_, i) => make(i));

  it('refuses 101 steps, 101 components in a step and 101 customisations in a component', async () => {
    await refused(
      { name: 'n', sku: 'BIG-1', steps: many(101, (i) => ({ name: 's', order: i })) },
      { 'input.steps': ['The steps must not have more than 100 items.'] },
    );
    await refused(
      {
        name: 'n',
        sku: 'BIG-2',
        steps: [{ name: 's', order: 1, components: many(101, (i) => ({ name: 'c', position: i })) }],
      },
      { 'input.steps.0.components': ['The components must not have more than 100 items.'] },
    );
    await refused(
      tree(
        {},
        {
          components: [
            { name: 'c', position: 1, customisations: many(101, () => ({ name: 'x', type: 't', price: 1 })) },
          ],
        },
      ),
      { 'input.steps.0.components.0.customisations': ['The customisations must not have more than 100 items.'] },
    );
  });

  it('answers a huge string with a short error that does not echo it', async () => {
    const res = await refused(
      { ...tree({}), name: 'x'.repeat(900_000) },
      { 'input.name': ['The name must not be greater than 200 characters.'] },
    );
    expect(JSON.stringify(res.body).length).toBeLessThan(1_000);
  });

  it('lists at most 100 paths for an input that breaks thousands of rules', async () => {
    const steps = many(100, (s) => ({ name: '', order: s, components: many(10, (c) => ({ name: '', position: c })) }));
    const res = await t.graphql(CREATE, { token: admin, variables: { input: { name: 'n', sku: 'MANY-1', steps } } });
    expect(Object.keys(res.body.errors[0].extensions.validation)).toHaveLength(100);
    expect(await catalogSnapshot(t)).toEqual(before);
  });

  it('refuses a body over GRAPHQL_MAX_BODY_BYTES with 413 before reading it', async () => {
    const res = await t.graphql(CREATE, {
      token: admin,
      variables: { input: { ...tree({}), name: 'x'.repeat(1_100_000) } },
    });
    expect(res.status).toBe(413);
    expect(await catalogSnapshot(t)).toEqual(before);
  });
});

describe('values GraphQL itself refuses', () => {
  async function raw(body: string) {
    const res = await fetch(`${t.url}/graphql`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/graphql-response+json',
        authorization: `Bearer ${admin}`,
      },
      body,
    });
    return { status: res.status, body: await res.text() };
  }

  it.each([
    ['Infinity (1e400 in JSON)', '1e400'],
    ['NaN as a string', '"NaN"'],
    ['a price as text', '"1.00"'],
    ['a fractional order', null],
  ])('answers %s with a 400 and a clear message', async (_, price) => {
    const input =
      price === null
        ? JSON.stringify(tree({}, { order: 1.5 }))
        : JSON.stringify(tree({})).replace('"price":1', `"price":${price}`);
    const res = await raw(`{"query":${JSON.stringify(CREATE)},"variables":{"input":${input}}}`);
    expect(res.status).toBe(400);
    const { errors } = JSON.parse(res.body);
    expect(errors[0].message).toMatch(/^Variable "\$input" got invalid value .* at "input\.steps\[0\]\./);
    expect(res.body).not.toMatch(/stack|at \w+ \(/);
    expect(await catalogSnapshot(t)).toEqual(before);
  });

  it('answers variables nested 100,000 levels deep with a 4xx, not a 500', async () => {
    const deep = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
    const res = await raw(`{"query":${JSON.stringify(CREATE)},"variables":{"input":${deep}}}`);
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
    expect(await catalogSnapshot(t)).toEqual(before);
  });
});

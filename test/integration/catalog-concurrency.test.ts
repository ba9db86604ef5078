import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.ts';
import { adminAndUserTokens, mutate, productInput } from '../support/catalog-writes.ts';

// Optimistic concurrency: two writers read the same version and write at once. One wins, the other is told
// CONFLICT, and the stored tree is exactly the winner's, never a mix of both.

let t: TestApp;
let admin: string;

beforeAll(async () => {
  t = await startTestApp();
  ({ admin } = await adminAndUserTokens(t));
});
afterAll(() => t.close());

const UPSERT = `mutation ($input: UpsertProductInput!) { upsertProduct(input: $input) { updatedAt } }`;
const SHAPE = `name steps { name order components { name position customisations { name type price } } }`;

/** A writer's whole version of the product: its own names and prices everywhere. */
function version(writer: string, round: number) {
  const input = productInput('RACE-1', { steps: 3, components: 3, customisations: 3 });
  return {
    ...input,
    name: `${writer} ${round}`,
    steps: input.steps.map((s) => ({
      ...s,
      name: `${writer} ${s.name}`,
      components: s.components.map((c) => ({
        ...c,
        customisations: c.customisations.map((x, i) => ({
          ...x,
          name: `${writer} ${i}`,
          price: writer === 'A' ? 1.11 : 2.22,
        })),
      })),
    })),
  };
}

describe('two writers on one product', () => {
  it('one gets CONFLICT and the stored tree is exactly the other one’s, round after round', async () => {
    let { upsertProduct: current } = await mutate(t, admin, UPSERT, { input: version('seed', 0) });
    for (let round = 1; round <= 8; round++) {
      const writers = ['A', 'B'].map((writer) => ({
        writer,
        input: { ...version(writer, round), expectedUpdatedAt: current.updatedAt },
      }));
      const results = await Promise.all(
        writers.map(({ input }) => t.graphql(UPSERT, { token: admin, variables: { input } })),
      );
      const won = results.flatMap((res, i) => (res.body.errors ? [] : [writers[i]!]));
      const lost = results.filter((res) => res.body.errors);
      expect(won).toHaveLength(1);
      expect(lost).toHaveLength(1);
      expect(lost[0]!.body.errors[0].extensions.code).toBe('CONFLICT');

      const { product } = await mutate(t, admin, `query { products(first: 1) { data { id } } }`).then(
        async ({ products }) =>
          mutate(t, admin, `query ($id: ID!) { product(id: $id) { ${SHAPE} updatedAt } }`, { id: products.data[0].id }),
      );
      const { sku: _sku, expectedUpdatedAt: _at, ...expected } = won[0]!.input;
      const { updatedAt, ...stored } = product;
      expect(stored).toEqual(expected);
      current = { updatedAt };
    }
  });

  it('a writer without expectedUpdatedAt waits for the other and then applies in full', async () => {
    const { createProduct } = await mutate(
      t,
      admin,
      `mutation ($input: CreateProductInput!) { createProduct(input: $input) { id } }`,
      {
        input: productInput('RACE-2', { steps: 2, components: 2, customisations: 2 }),
      },
    );
    const rename = (name: string) =>
      t.graphql(
        `mutation ($id: ID!, $name: String!) { updateProduct(id: $id, input: { name: $name }) { name updatedAt } }`,
        {
          token: admin,
          variables: { id: createProduct.id, name },
        },
      );
    const [a, b] = await Promise.all([rename('first'), rename('second')]);
    expect(a.body.errors).toBeUndefined();
    expect(b.body.errors).toBeUndefined();
    // Serialized on the product's lock: the later write has the later updatedAt, and its name stands.
    const last =
      Date.parse(a.body.data.updateProduct.updatedAt) > Date.parse(b.body.data.updateProduct.updatedAt) ? a : b;
    const { product } = await mutate(t, admin, `query ($id: ID!) { product(id: $id) { name } }`, {
      id: createProduct.id,
    });
    expect(product.name).toBe(last.body.data.updateProduct.name);
  });
});

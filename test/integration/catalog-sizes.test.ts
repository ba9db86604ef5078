import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertProductTrees } from '../../src/modules/catalog/tools.ts';
import { startTestApp, type TestApp } from '../support/app.ts';
import { adminAndUserTokens, catalogSnapshot, mutate, productInput, TREE } from '../support/catalog-writes.ts';
import { FULL_PRODUCT, postGraphQL } from '../support/edge.ts';

// Issue 20, findings 2 and 3: a product has a size (per-product totals on every write path), an answer has a
// bound (list sizes priced at their real length before the rows are read), and every tree the limits accept
// can be written and rewritten.

const CREATE = `mutation ($input: CreateProductInput!) { createProduct(input: $input) { id } }`;
const UPSERT = `mutation ($input: UpsertProductInput!) { upsertProduct(input: $input) { id updatedAt } }`;

/** A tree with the given components per step and customisations per component. */
function tree(sku: string, steps: number[][]) {
  return {
    name: `Product ${sku}`,
    sku,
    steps: steps.map((components, s) => ({
      name: `Step ${s}`,
      order: s,
      components: components.map((customisations, c) => ({
        name: `Component ${c}`,
        position: c,
        customisations: Array.from({ length: customisations }, (_, x) => ({
          name: `Option ${x}`,
          type: 'colour',
          price: x + 0.5,
        })),
      })),
    })),
  };
}

async function expectRefusedWrite(
  t: TestApp,
  token: string,
  query: string,
  variables: Record<string, unknown>,
  path: string,
  message: RegExp,
) {
  const before = await catalogSnapshot(t);
  const res = await t.graphql(query, { token, variables });
  expect(res.status).toBe(200);
  expect(res.body.errors).toHaveLength(1);
  expect(res.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
  expect(Object.keys(res.body.errors[0].extensions.validation)).toEqual([path]);
  expect(res.body.errors[0].extensions.validation[path].join(' ')).toMatch(message);
  expect(await catalogSnapshot(t)).toEqual(before);
}

async function sizeOf(t: TestApp, sku: string) {
  const { rows } = await sql<{ s: number; c: number; x: number }>`
    SELECT step_count AS s, component_count AS c, customisation_count AS x FROM products WHERE sku = ${sku}`.execute(
    t.database.handle.db,
  );
  return rows[0];
}

describe('per-product totals (3 steps, 3 per parent, 5 components and 10 customisations per product)', () => {
  let t: TestApp;
  let admin: string;

  beforeAll(async () => {
    t = await startTestApp({
      env: {
        CATALOG_MAX_STEPS: '3',
        CATALOG_MAX_COMPONENTS_PER_STEP: '3',
        CATALOG_MAX_CUSTOMISATIONS_PER_COMPONENT: '3',
        CATALOG_MAX_COMPONENTS_PER_PRODUCT: '5',
        CATALOG_MAX_CUSTOMISATIONS_PER_PRODUCT: '10',
      },
    });
    ({ admin } = await adminAndUserTokens(t));
  });
  afterAll(() => t.close());

  it('createProduct and upsertProduct refuse a tree over a product total, though each list fits its parent', async () => {
    // 6 components, each list within 3.
    await expectRefusedWrite(
      t,
      admin,
      CREATE,
      {
        input: tree('too-wide', [
          [1, 1],
          [1, 1],
          [1, 1],
        ]),
      },
      'input.steps',
      /at most 5 components in all; this would make 6/,
    );
    // 11 customisations.
    await expectRefusedWrite(
      t,
      admin,
      UPSERT,
      { input: tree('too-deep', [[3, 3, 3], [2]]) },
      'input.steps',
      /at most 10 customisations in all; this would make 11/,
    );
    // At the totals, both write.
    await mutate(t, admin, CREATE, { input: tree('full-created', [[3, 3, 3], [1]]) });
    await mutate(t, admin, UPSERT, { input: tree('full-upserted', [[3, 3, 3], [1]]) });
    expect(await sizeOf(t, 'full-created')).toEqual({ s: 2, c: 4, x: 10 });
  });

  it('an upsert may shrink a product and grow it back to the totals, not past them', async () => {
    await mutate(t, admin, UPSERT, { input: tree('shrinks', [[3, 3, 3], [1]]) });
    await mutate(t, admin, UPSERT, { input: tree('shrinks', [[1]]) });
    expect(await sizeOf(t, 'shrinks')).toEqual({ s: 1, c: 1, x: 1 });
    await mutate(t, admin, UPSERT, { input: tree('shrinks', [[3, 3], [3, 1], [0]]) });
    expect(await sizeOf(t, 'shrinks')).toEqual({ s: 3, c: 5, x: 10 });
    await expectRefusedWrite(
      t,
      admin,
      UPSERT,
      {
        input: tree('shrinks', [
          [3, 3],
          [3, 1],
          [0, 0],
        ]),
      },
      'input.steps',
      /at most 5 components in all; this would make 6\./,
    );
  });

  it('granular creates count what the product stores: steps, components, customisations, and per parent', async () => {
    const created = await mutate(
      t,
      admin,
      `mutation ($input: CreateProductInput!) { createProduct(input: $input) { ${TREE} } }`,
      {
        input: tree('granular', [[3, 3, 3], [1]]),
      },
    );
    const product = created.createProduct;
    const [first, second] = product.steps;
    const full = second.components[0].id;
    const createCustomisation = `mutation ($id: ID!) { createCustomisation(componentId: $id, input: { name: "More", type: "colour", price: 1 }) { id } }`;
    const createComponent = `mutation ($id: ID!, $n: Int!) { createComponent(stepId: $id, input: { name: "More", position: $n }) { id } }`;
    const createStep = `mutation ($id: ID!, $n: Int!) { createStep(productId: $id, input: { name: "More", order: $n }) { id } }`;

    // 10 customisations stored: one more is refused even on a component with room for it.
    await expectRefusedWrite(
      t,
      admin,
      createCustomisation,
      { id: full },
      'input',
      /at most 10 customisations in all; this would make 11 \(it has 10\)/,
    );
    // Per parent: a component of 3 is full whatever the product holds.
    await expectRefusedWrite(
      t,
      admin,
      createCustomisation,
      { id: first.components[0].id },
      'input',
      /A component may have at most 3 customisations; it has 3/,
    );
    // Components: 4 stored, one more fits, then the product is full; the step is full at 3.
    await expectRefusedWrite(
      t,
      admin,
      createComponent,
      { id: first.id, n: 9 },
      'input',
      /A step may have at most 3 components; it has 3/,
    );
    await mutate(t, admin, createComponent, { id: second.id, n: 2 });
    await expectRefusedWrite(
      t,
      admin,
      createComponent,
      { id: second.id, n: 3 },
      'input',
      /at most 5 components in all; this would make 6/,
    );
    // Steps: 2 stored, one more fits.
    await mutate(t, admin, createStep, { id: product.id, n: 5 });
    await expectRefusedWrite(
      t,
      admin,
      createStep,
      { id: product.id, n: 6 },
      'input',
      /at most 3 steps in all; this would make 4/,
    );

    // A delete (its cascade included) gives the room back: the counts follow every write.
    await mutate(t, admin, `mutation ($id: ID!) { deleteStep(id: $id) { id } }`, { id: first.id });
    expect(await sizeOf(t, 'granular')).toEqual({ s: 2, c: 2, x: 1 });
    await mutate(t, admin, createCustomisation, { id: full });
  });

  it('concurrent granular creates take turns on the product: never past the total', async () => {
    const created = await mutate(
      t,
      admin,
      `mutation ($input: CreateProductInput!) { createProduct(input: $input) { steps { components { id } } } }`,
      {
        input: tree('racing', [
          [3, 3, 1],
          [0, 0],
        ]),
      },
    );
    const [a, b] = created.createProduct.steps[1].components;
    const create = `mutation ($id: ID!) { createCustomisation(componentId: $id, input: { name: "Race", type: "colour", price: 1 }) { id } }`;
    // 7 stored, room for 3: six at once, on two components with room for 3 each.
    const results = await Promise.all(
      [a, b, a, b, a, b].map((c) => t.graphql(create, { token: admin, variables: { id: c.id } })),
    );
    expect(results.filter((r) => r.body.errors === undefined)).toHaveLength(3);
    expect(results.filter((r) => r.body.errors?.[0].extensions.code === 'BAD_USER_INPUT')).toHaveLength(3);
    expect(await sizeOf(t, 'racing')).toEqual({ s: 2, c: 5, x: 10 });
  });
});

describe('the answer bound (GRAPHQL_MAX_ANSWER_FIELDS=2000)', () => {
  let t: TestApp;
  let token: string;
  let bigId: string;
  let smallId: string;

  beforeAll(async () => {
    t = await startTestApp({ env: { GRAPHQL_MAX_ANSWER_FIELDS: '2000' } });
    ({ user: token } = await adminAndUserTokens(t));
    // Written straight into the tables, past every write limit, as a product created before them would be.
    const db = t.app.database.db;
    const rows = (input: ReturnType<typeof tree>) => ({
      ...input,
      steps: input.steps.map((s) => ({
        ...s,
        components: s.components.map((c) => ({
          ...c,
          customisations: c.customisations.map((x) => ({ ...x, price: x.price.toFixed(2) })),
        })),
      })),
    });
    await insertProductTrees(
      db,
      [
        tree('small', [
          [2, 2],
          [2, 2],
        ]),
        tree(
          'big',
          Array.from({ length: 20 }, () => Array.from({ length: 30 }, () => 10)),
        ),
      ].map(rows),
    );
    const ids = await db.selectFrom('products').select(['id', 'sku']).execute();
    bigId = String(ids.find((r) => r.sku === 'big')!.id);
    smallId = String(ids.find((r) => r.sku === 'small')!.id);
  });
  afterAll(() => t.close());

  async function expectAnswerRefused(query: string, { treeRead = false } = {}) {
    const before = t.logs.lines.length;
    t.database.queries.reset();
    const res = await postGraphQL(t, token, { query });
    expect(res.status).toBe(400);
    expect(res.body.data).toBeUndefined();
    expect(res.body.errors).toHaveLength(1);
    expect(res.body.errors[0].message).toMatch(/^Answer size limit of 2000 fields exceeded, found at least \d+\./);
    expect(res.body.errors[0].extensions.code).toBe('GRAPHQL_VALIDATION_FAILED');
    // The big tree was never read: the product's counts priced it (a page reads the trees of the products before it).
    if (!treeRead) expect(t.database.queries.statements.join('\n')).not.toMatch(/\bcustomisations\b/);
    // One access line, at most; no error lines.
    const lines = t.logs.lines.slice(before);
    expect(lines.length).toBeLessThanOrEqual(2);
    expect(lines.filter((l) => JSON.parse(l).level >= 50)).toEqual([]);
  }

  it('refuses a full-depth read of a product too big for it, before reading its tree, and never caches it', async () => {
    expect(await sizeOf(t, 'big')).toEqual({ s: 20, c: 600, x: 6000 });
    const query = `{ product(id: "${bigId}") { ${FULL_PRODUCT} } }`;
    await expectAnswerRefused(query);
    // The same request again runs again: a refusal is not an answer the cache keeps.
    await expectAnswerRefused(query);
    // What fits is answered: its steps, or the small product whole.
    const shallow = await postGraphQL(t, token, { query: `{ product(id: "${bigId}") { id steps { id name } } }` });
    expect(shallow.status).toBe(200);
    expect(shallow.body.data.product.steps).toHaveLength(20);
    const small = await postGraphQL(t, token, { query: `{ product(id: "${smallId}") { ${FULL_PRODUCT} } }` });
    expect(small.body.errors).toBeUndefined();
    expect(small.body.data.product.steps[1].components[1].customisations).toHaveLength(2);
  });

  it('counts aliases, pages and fragments: the sum is what is bounded', async () => {
    // 600 components x 3 fields fit; 2 aliases of them do not.
    const components = `steps { components { id name position } }`;
    const one = await postGraphQL(t, token, { query: `{ a: product(id: "${bigId}") { ${components} } }` });
    expect(one.status).toBe(200);
    await expectAnswerRefused(
      `{ a: product(id: "${bigId}") { ${components} } b: product(id: "${bigId}") { ${components} } }`,
    );
    await expectAnswerRefused(
      `{ products(first: 10) { data { ...P } } } fragment P on Product { steps { components { ... on Component { customisations { id } } } } }`,
      {
        treeRead: true,
      },
    );
  });

  it('bounds what a mutation returns', async () => {
    const { admin } = await adminAndUserTokens(t);
    const before = t.logs.lines.length;
    const res = await postGraphQL(t, admin, {
      query: `mutation { updateProduct(id: "${bigId}", input: { name: "Renamed" }) { ${FULL_PRODUCT} } }`,
    });
    expect(res.status).toBe(400);
    expect(res.body.errors[0].extensions.code).toBe('GRAPHQL_VALIDATION_FAILED');
    expect(t.logs.lines.slice(before).filter((l) => JSON.parse(l).level >= 50)).toEqual([]);
  });
});

describe('the largest tree the default limits accept', () => {
  let t: TestApp;
  let admin: string;

  beforeAll(async () => {
    t = await startTestApp();
    ({ admin } = await adminAndUserTokens(t));
  });
  afterAll(() => t.close());

  it('is created, upserted, and upserted again with every price changed, within the statement timeout', async () => {
    const limits = t.config.catalog.writeLimits;
    expect(limits).toMatchObject({ maxSteps: 100, maxComponentsPerProduct: 1000, maxCustomisationsPerProduct: 5000 });
    // 100 steps x 10 components x 5 customisations: every total at its limit.
    const input = productInput('largest', { steps: 100, components: 10, customisations: 5 });
    await mutate(t, admin, CREATE, { input });
    const upserted = { ...input, sku: 'largest-upserted' };
    expect((await mutate(t, admin, UPSERT, { input: upserted })).upsertProduct.id).toMatch(/^\d+$/);
    const repriced = structuredClone(upserted);
    for (const step of repriced.steps)
      for (const c of step.components) for (const x of c.customisations) x.price = 7.77;
    await mutate(t, admin, UPSERT, { input: repriced });
    expect(await sizeOf(t, 'largest-upserted')).toEqual({ s: 100, c: 1000, x: 5000 });
    const { rows } = await sql<{ n: number }>`
      SELECT count(*)::int AS n FROM customisations x JOIN components c ON c.id = x.component_id JOIN steps s ON s.id = c.step_id
      JOIN products p ON p.id = s.product_id WHERE p.sku = 'largest-upserted' AND x.price = 7.77`.execute(
      t.database.handle.db,
    );
    expect(rows[0]!.n).toBe(5000);
  });

  it('one over a total is refused as bad input, not a 503 a client would retry', async () => {
    const input = productInput('over', { steps: 100, components: 10, customisations: 5 });
    input.steps[0]!.components[0]!.customisations.push({ name: 'One more', type: 'colour', price: 1 });
    const res = await t.graphql(CREATE, { token: admin, variables: { input } });
    expect(res.status).toBe(200);
    expect(res.headers.get('retry-after')).toBeNull();
    expect(res.body.errors[0].extensions).toMatchObject({
      code: 'BAD_USER_INPUT',
      validation: { 'input.steps': [expect.stringMatching(/5001/)] },
    });
  });
});

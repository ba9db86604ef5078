import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.ts';
import { adminAndUserTokens, catalogSnapshot, mutate, productInput, TREE } from '../support/catalog-writes.ts';

let t: TestApp;
let admin: string;

beforeAll(async () => {
  t = await startTestApp();
  ({ admin } = await adminAndUserTokens(t));
});
afterAll(() => t.close());

const CREATE = `mutation ($input: CreateProductInput!) { createProduct(input: $input) { ${TREE} } }`;
const READ = `query ($id: ID!) { product(id: $id) { ${TREE} } }`;

describe('createProduct', () => {
  it('creates a 5 × 4 × 3 tree in one transaction with one INSERT per table', async () => {
    t.database.queries.reset();
    const { createProduct: p } = await mutate(t, admin, CREATE, { input: productInput('CW-1') });
    const inserts = t.database.queries.statements.filter((s) => /^\s*insert/i.test(s));
    expect(inserts.map((s) => /insert into "?(\w+)"?/i.exec(s)?.[1])).toEqual([
      'products',
      'steps',
      'components',
      'customisations',
    ]);
    expect(p.steps).toHaveLength(5);
    expect(p.steps.map((s: any) => s.order)).toEqual([1, 2, 3, 4, 5]);
    expect(p.steps[0].components.map((c: any) => c.position)).toEqual([1, 2, 3, 4]);
    expect(p.steps[4].components[3].customisations).toHaveLength(3);
    expect(p.steps[0].components[0].customisations[1]).toMatchObject({
      name: 'Option 2',
      type: 'dropdown',
      price: 1.1,
    });
    expect(p.createdAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    // Read back through the query, it is the same tree.
    const { product } = await mutate(t, admin, READ, { id: p.id });
    expect(product).toEqual(p);
  });

  it('trims names and refuses a taken sku, writing nothing', async () => {
    const { createProduct: p } = await mutate(t, admin, CREATE, { input: { name: '  Spaced  ', sku: 'CW-2' } });
    expect(p.name).toBe('Spaced');
    const before = await catalogSnapshot(t);
    const res = await t.graphql(CREATE, { token: admin, variables: { input: productInput('CW-2') } });
    expect(res.body.errors[0]).toMatchObject({
      message: 'Validation failed for the field [createProduct].',
      extensions: { code: 'BAD_USER_INPUT', validation: { 'input.sku': ['The sku has already been taken.'] } },
    });
    expect(await catalogSnapshot(t)).toEqual(before);
  });
});

describe('updatedAt and expectedUpdatedAt', () => {
  it("moves a product's updatedAt when anything in its tree changes, and only then", async () => {
    const { createProduct: p } = await mutate(t, admin, CREATE, {
      input: productInput('CW-3', { steps: 1, components: 1, customisations: 1 }),
    });
    const option = p.steps[0].components[0].customisations[0];
    const { updateCustomisation: changed } = await mutate(
      t,
      admin,
      `mutation ($id: ID!) { updateCustomisation(id: $id, input: { price: 12.5 }) { price updatedAt } }`,
      { id: option.id },
    );
    expect(changed.price).toBe(12.5);
    expect(Date.parse(changed.updatedAt)).toBeGreaterThan(Date.parse(option.updatedAt));
    const { product: after } = await mutate(t, admin, READ, { id: p.id });
    expect(Date.parse(after.updatedAt)).toBeGreaterThan(Date.parse(p.updatedAt));
    // The same value again is no change.
    await mutate(t, admin, `mutation ($id: ID!) { updateCustomisation(id: $id, input: { price: 12.5 }) { id } }`, {
      id: option.id,
    });
    const { product: again } = await mutate(t, admin, READ, { id: p.id });
    expect(again.updatedAt).toBe(after.updatedAt);
  });

  it('refuses a write based on an older version with CONFLICT and changes nothing', async () => {
    const { createProduct: p } = await mutate(t, admin, CREATE, {
      input: productInput('CW-4', { steps: 1, components: 1, customisations: 1 }),
    });
    await mutate(t, admin, `mutation ($id: ID!) { updateProduct(id: $id, input: { name: "First" }) { id } }`, {
      id: p.id,
    });
    const before = await catalogSnapshot(t);
    const res = await t.graphql(
      `mutation ($id: ID!, $at: DateTime) { updateProduct(id: $id, input: { name: "Second", expectedUpdatedAt: $at }) { id } }`,
      { token: admin, variables: { id: p.id, at: p.updatedAt } },
    );
    expect(res.body.errors[0].extensions.code).toBe('CONFLICT');
    expect(res.body.errors[0].message).toMatch(/after expectedUpdatedAt/);
    expect(await catalogSnapshot(t)).toEqual(before);
  });
});

describe('granular writes', () => {
  it('creates, changes, reorders and deletes steps, components and customisations', async () => {
    const { createProduct: p } = await mutate(t, admin, CREATE, { input: { name: 'Granular', sku: 'CW-5' } });
    const { createStep: s1 } = await mutate(
      t,
      admin,
      `mutation ($p: ID!) { createStep(productId: $p, input: { name: "Size", order: 1, components: [{ name: "Frame", position: 1 }] }) { id components { id } } }`,
      { p: p.id },
    );
    const { createStep: s2 } = await mutate(
      t,
      admin,
      `mutation ($p: ID!) { createStep(productId: $p, input: { name: "Colour", order: 2 }) { id } }`,
      {
        p: p.id,
      },
    );
    const { createComponent: c2 } = await mutate(
      t,
      admin,
      `mutation ($s: ID!) { createComponent(stepId: $s, input: { name: "Top", position: 2 }) { id } }`,
      {
        s: s1.id,
      },
    );
    const { createCustomisation: x } = await mutate(
      t,
      admin,
      `mutation ($c: ID!) { createCustomisation(componentId: $c, input: { name: "Oak", type: "material", price: 0.29 }) { id price } }`,
      { c: c2.id },
    );
    expect(x.price).toBe(0.29);
    const { reorderSteps } = await mutate(
      t,
      admin,
      `mutation ($p: ID!, $ids: [ID!]!) { reorderSteps(productId: $p, stepIds: $ids) { steps { id order } } }`,
      {
        p: p.id,
        ids: [s2.id, s1.id],
      },
    );
    expect(reorderSteps.steps).toEqual([
      { id: s2.id, order: 1 },
      { id: s1.id, order: 2 },
    ]);
    const { reorderComponents } = await mutate(
      t,
      admin,
      `mutation ($s: ID!, $ids: [ID!]!) { reorderComponents(stepId: $s, componentIds: $ids) { components { id position } } }`,
      { s: s1.id, ids: [c2.id, s1.components[0].id] },
    );
    expect(reorderComponents.components).toEqual([
      { id: c2.id, position: 1 },
      { id: s1.components[0].id, position: 2 },
    ]);
    const { updateStep } = await mutate(
      t,
      admin,
      `mutation ($s: ID!) { updateStep(id: $s, input: { name: "Sizes" }) { name order } }`,
      { s: s1.id },
    );
    expect(updateStep).toEqual({ name: 'Sizes', order: 2 });
    const taken = await t.graphql(`mutation ($s: ID!) { updateStep(id: $s, input: { order: 1 }) { id } }`, {
      token: admin,
      variables: { s: s1.id },
    });
    expect(taken.body.errors[0].extensions.validation).toEqual({
      'input.order': ['The order has already been taken.'],
    });

    const { deleteComponent } = await mutate(t, admin, `mutation ($c: ID!) { deleteComponent(id: $c) { id name } }`, {
      c: c2.id,
    });
    expect(deleteComponent).toEqual({ id: c2.id, name: 'Top' });
    const { product } = await mutate(
      t,
      admin,
      `query ($id: ID!) { product(id: $id) { steps { id components { id customisations { id } } } } }`,
      { id: p.id },
    );
    expect(product.steps).toEqual([
      { id: s2.id, components: [] },
      { id: s1.id, components: [{ id: s1.components[0].id, customisations: [] }] },
    ]);
  });

  it('answers NOT_FOUND for ids that name nothing, and refuses a reorder that is not a permutation', async () => {
    for (const [query, vars] of [
      ['mutation { updateProduct(id: "999999", input: { name: "x" }) { id } }', {}],
      ['mutation { deleteStep(id: "999999") { id } }', {}],
      ['mutation { deleteCustomisation(id: "not-a-number") { id } }', {}],
      ['mutation { createComponent(stepId: "18446744073709551616", input: { name: "x", position: 1 }) { id } }', {}],
    ] as const) {
      const res = await t.graphql(query, { token: admin, variables: vars });
      expect(res.body.errors[0].extensions.code, query).toBe('NOT_FOUND');
    }
    const { createProduct: p } = await mutate(t, admin, CREATE, {
      input: productInput('CW-6', { steps: 2, components: 0, customisations: 0 }),
    });
    const res = await t.graphql(
      `mutation ($p: ID!, $ids: [ID!]!) { reorderSteps(productId: $p, stepIds: $ids) { id } }`,
      {
        token: admin,
        variables: { p: p.id, ids: [p.steps[0].id, p.steps[0].id] },
      },
    );
    expect(res.body.errors[0].extensions.validation).toEqual({
      stepIds: ['The stepIds must list every step of the product exactly once.'],
    });
  });

  it('deleteProduct returns the product as it was and takes its tree with it', async () => {
    const { createProduct: p } = await mutate(t, admin, CREATE, {
      input: productInput('CW-7', { steps: 2, components: 2, customisations: 2 }),
    });
    const { deleteProduct } = await mutate(t, admin, `mutation ($id: ID!) { deleteProduct(id: $id) { id name sku } }`, {
      id: p.id,
    });
    expect(deleteProduct).toEqual({ id: p.id, name: p.name, sku: 'CW-7' });
    expect((await mutate(t, admin, READ, { id: p.id })).product).toBeNull();
    const orphan = await t.graphql(
      `query ($id: ID!) { _entities(representations: [{ __typename: "Step", id: $id }]) { __typename } }`,
      {
        token: admin,
        variables: { id: p.steps[0].id },
      },
    );
    expect(orphan.status).toBe(403);
  });

  it('logs every write with the user, the token and the ids, never a secret', async () => {
    await mutate(t, admin, `mutation { createProduct(input: { name: "Logged", sku: "CW-8" }) { id } }`);
    const line = t.logs.lines
      .map((l) => JSON.parse(l))
      .find((l) => l.msg === 'catalog write' && l.operation === 'createProduct' && l.sku === 'CW-8');
    expect(line).toMatchObject({
      via: 'graphql',
      userId: expect.any(String),
      tokenId: admin.split('|')[0],
      productId: expect.any(String),
    });
    expect(t.logs.text).not.toContain(admin.split('|')[1]);
  });
});

import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.ts';
import { catalogSnapshot, mutate, productInput } from '../support/catalog-writes.ts';

// The abilities matrix: who may write, and what a refusal looks like. Tokens are narrowed in the table
// itself so this test depends on enforcement only, not on how a narrower token is minted.

let t: TestApp;
let productId: string;
let stepId: string;
let componentId: string;
let customisationId: string;
const tokens = {} as Record<'adminLogin' | 'adminRead' | 'adminNone' | 'userLogin' | 'userWrite', string>;

async function token(email: string, password: string, abilities: string[]): Promise<string> {
  const bearer = await t.login(email, password);
  await sql`UPDATE personal_access_tokens SET abilities = ${JSON.stringify(abilities)}::jsonb WHERE id = ${bearer.split('|')[0]}`.execute(
    t.database.handle.db,
  );
  return bearer;
}

beforeAll(async () => {
  t = await startTestApp();
  const admin = await t.createUser({ isAdmin: true });
  const user = await t.createUser();
  tokens.adminLogin = await t.login(admin.email, admin.password);
  tokens.adminRead = await token(admin.email, admin.password, ['catalog:read']);
  tokens.adminNone = await token(admin.email, admin.password, []);
  tokens.userLogin = await t.login(user.email, user.password);
  tokens.userWrite = await token(user.email, user.password, ['catalog:read', 'catalog:write']);
  const { createProduct } = await mutate(
    t,
    tokens.adminLogin,
    `mutation ($input: CreateProductInput!) { createProduct(input: $input) {
      id steps { id components { id customisations { id } } } } }`,
    { input: productInput('AB-1', { steps: 2, components: 2, customisations: 1 }) },
  );
  productId = createProduct.id;
  stepId = createProduct.steps[0].id;
  componentId = createProduct.steps[0].components[0].id;
  customisationId = createProduct.steps[0].components[0].customisations[0].id;
});
afterAll(() => t.close());

const MUTATIONS: Array<[string, () => Record<string, unknown>]> = [
  ['mutation ($i: CreateProductInput!) { createProduct(input: $i) { id } }', () => ({ i: productInput('AB-2') })],
  ['mutation ($id: ID!) { updateProduct(id: $id, input: { name: "Renamed" }) { id } }', () => ({ id: productId })],
  ['mutation ($id: ID!) { deleteProduct(id: $id) { id } }', () => ({ id: productId })],
  [
    'mutation ($i: UpsertProductInput!) { upsertProduct(input: $i) { id } }',
    () => ({ i: productInput('AB-1', { steps: 1, components: 1, customisations: 1 }) }),
  ],
  [
    'mutation ($id: ID!) { createStep(productId: $id, input: { name: "S", order: 99 }) { id } }',
    () => ({ id: productId }),
  ],
  ['mutation ($id: ID!) { updateStep(id: $id, input: { name: "S" }) { id } }', () => ({ id: stepId })],
  ['mutation ($id: ID!) { deleteStep(id: $id) { id } }', () => ({ id: stepId })],
  [
    'mutation ($id: ID!) { createComponent(stepId: $id, input: { name: "C", position: 99 }) { id } }',
    () => ({ id: stepId }),
  ],
  ['mutation ($id: ID!) { updateComponent(id: $id, input: { name: "C" }) { id } }', () => ({ id: componentId })],
  ['mutation ($id: ID!) { deleteComponent(id: $id) { id } }', () => ({ id: componentId })],
  [
    'mutation ($id: ID!) { createCustomisation(componentId: $id, input: { name: "X", type: "t", price: 1 }) { id } }',
    () => ({ id: componentId }),
  ],
  ['mutation ($id: ID!) { updateCustomisation(id: $id, input: { price: 2 }) { id } }', () => ({ id: customisationId })],
  ['mutation ($id: ID!) { deleteCustomisation(id: $id) { id } }', () => ({ id: customisationId })],
  ['mutation ($id: ID!) { reorderSteps(productId: $id, stepIds: []) { id } }', () => ({ id: productId })],
  ['mutation ($id: ID!) { reorderComponents(stepId: $id, componentIds: []) { id } }', () => ({ id: stepId })],
];

const READ = 'query ($id: ID!) { product(id: $id) { id name } products(first: 1) { data { id } } }';

async function expectRefused(bearer: string, query: string, variables: Record<string, unknown>) {
  const before = await catalogSnapshot(t);
  t.database.queries.reset();
  const res = await t.graphql(query, { token: bearer, variables });
  expect(res.status).toBe(403);
  expect(res.body.data ?? null).toBeNull();
  expect(res.body.errors.length).toBeGreaterThan(0);
  for (const error of res.body.errors) {
    expect(error).toMatchObject({ message: 'This action is unauthorized.', extensions: { code: 'FORBIDDEN' } });
  }
  // Only the token lookup ran: no catalogue statement, no transaction.
  expect(t.database.queries.statements.filter((s) => !/personal_access_tokens/.test(s))).toEqual([]);
  expect(await catalogSnapshot(t)).toEqual(before);
}

describe('catalog:write', () => {
  for (const who of ['adminRead', 'adminNone', 'userLogin', 'userWrite'] as const) {
    it(`is refused to ${who} on every mutation: FORBIDDEN, 403, nothing runs, nothing changes`, async () => {
      for (const [query, variables] of MUTATIONS) await expectRefused(tokens[who], query, variables());
    });
  }

  it('refuses the whole operation, one error per refused field, for a token without catalog:read', async () => {
    await expectRefused(tokens.adminNone, READ, { id: productId });
  });

  it("is granted to an administrator's login token", async () => {
    const { updateProduct } = await mutate(
      t,
      tokens.adminLogin,
      'mutation ($id: ID!) { updateProduct(id: $id, input: { name: "By admin" }) { name } }',
      {
        id: productId,
      },
    );
    expect(updateProduct.name).toBe('By admin');
  });
});

describe('catalog:read', () => {
  it('lets every token that holds it read, admin or not', async () => {
    for (const who of ['adminLogin', 'adminRead', 'userLogin', 'userWrite'] as const) {
      const data = await mutate(t, tokens[who], READ, { id: productId });
      expect(data.product.id).toBe(productId);
    }
  });

  it('names the missing ability in requiredScopes', async () => {
    const res = await t.graphql(READ, { token: tokens.adminNone, variables: { id: productId } });
    expect(JSON.stringify(res.body.errors[0].extensions)).toContain('catalog:read');
  });
});

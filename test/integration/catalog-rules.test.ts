import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.ts';
import { adminAndUserTokens, mutate } from '../support/catalog-writes.ts';

// Authoring what `configure` checks: prices, bounds and rules through create, update and upsert, and
// the granular createRule/deleteRule, validated with extensions.validation like every catalogue write.

let t: TestApp;
let admin: string;
let user: string;

beforeAll(async () => {
  t = await startTestApp({ env: { CATALOG_CURRENCY: 'USD', CATALOG_MAX_RULES_PER_PRODUCT: '5' } });
  ({ admin, user } = await adminAndUserTokens(t));
});
afterAll(() => t.close());

const PRODUCT = `id sku basePrice currency updatedAt
  steps { id order required
    components { id position minSelections maxSelections
      customisations { id name price priceMode } } }
  rules { id kind message customisation { id name } other { id name } }`;
const CREATE = `mutation ($input: CreateProductInput!) { createProduct(input: $input) { ${PRODUCT} } }`;
const UPSERT = `mutation ($input: UpsertProductInput!) { upsertProduct(input: $input) { ${PRODUCT} } }`;
const CREATE_RULE = `mutation ($productId: ID!, $input: CreateRuleInput!) {
  createRule(productId: $productId, input: $input) { id kind message customisation { id } other { id } } }`;
const DELETE_RULE = `mutation ($id: ID!) { deleteRule(id: $id) { id kind } }`;

const ref = (stepOrder: number, componentPosition: number, name: string) => ({ stepOrder, componentPosition, name });

/** A size step whose options replace the base price, a finish of two that exclude each other, an engraving. */
const chair = (sku: string, extra: Record<string, unknown> = {}): any => ({
  name: 'Chair',
  sku,
  basePrice: 100,
  currency: 'EUR',
  steps: [
    {
      name: 'Size',
      order: 1,
      required: true,
      components: [
        {
          name: 'Size',
          position: 1,
          minSelections: 1,
          maxSelections: 1,
          customisations: [
            { name: 'Small', type: 'dropdown', price: 90, priceMode: 'REPLACE_BASE' },
            { name: 'Large', type: 'dropdown', price: 140, priceMode: 'REPLACE_BASE' },
          ],
        },
      ],
    },
    {
      name: 'Finish',
      order: 2,
      components: [
        {
          name: 'Finish',
          position: 1,
          maxSelections: null,
          customisations: [
            { name: 'Oak', type: 'colour', price: 10 },
            { name: 'Walnut', type: 'colour', price: 20 },
            { name: 'Engraving', type: 'text', price: 5 },
          ],
        },
      ],
    },
  ],
  rules: [
    { kind: 'EXCLUDES', customisation: ref(2, 1, 'Oak'), other: ref(2, 1, 'Walnut'), message: 'One finish only.' },
    { kind: 'REQUIRES', customisation: ref(2, 1, 'Engraving'), other: ref(1, 1, 'Large') },
  ],
  ...extra,
});

async function refused(query: string, variables: Record<string, unknown>, validation: Record<string, string[]>) {
  const res = await t.graphql(query, { token: admin, variables });
  expect(res.status).toBe(200);
  expect(res.body.errors, JSON.stringify(res.body.errors)).toHaveLength(1);
  expect(res.body.errors[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT' });
  expect(res.body.errors[0].extensions.validation).toEqual(validation);
}

const byName = (p: any) =>
  Object.fromEntries(
    p.steps.flatMap((s: any) => s.components.flatMap((c: any) => c.customisations.map((x: any) => [x.name, x.id]))),
  );

describe('prices and bounds', () => {
  it('createProduct stores every new field, and the defaults when they are left out', async () => {
    const p = (await mutate(t, admin, CREATE, { input: chair('R-1') })).createProduct;
    expect(p).toMatchObject({ basePrice: 100, currency: 'EUR' });
    expect(p.steps.map((s: any) => s.required)).toEqual([true, false]);
    expect(p.steps[0].components[0]).toMatchObject({ minSelections: 1, maxSelections: 1 });
    expect(p.steps[1].components[0]).toMatchObject({ minSelections: 0, maxSelections: null });
    expect(p.steps[0].components[0].customisations[0]).toMatchObject({ name: 'Small', priceMode: 'REPLACE_BASE' });
    expect(p.steps[1].components[0].customisations[0]).toMatchObject({ name: 'Oak', priceMode: 'ADD' });

    const bare = (
      await mutate(t, admin, CREATE, {
        input: {
          name: 'Bare',
          sku: 'R-BARE',
          steps: [
            {
              name: 'S',
              order: 1,
              components: [{ name: 'C', position: 1, customisations: [{ name: 'X', type: 't', price: 1 }] }],
            },
          ],
        },
      })
    ).createProduct;
    // The instance's currency (CATALOG_CURRENCY=USD here), base 0, and the columns' defaults below.
    expect(bare).toMatchObject({ basePrice: 0, currency: 'USD', rules: [] });
    expect(bare.steps[0]).toMatchObject({ required: false });
    expect(bare.steps[0].components[0]).toMatchObject({ minSelections: 0, maxSelections: 1 });
    expect(bare.steps[0].components[0].customisations[0]).toMatchObject({ priceMode: 'ADD' });
  });

  it('refuses a negative or too precise base price, an unknown currency and min > max, by input path', async () => {
    const input = chair('R-BAD', { basePrice: -1, currency: 'EURO', rules: [] });
    input.steps[0]!.components[0]!.minSelections = 2;
    await refused(
      CREATE,
      { input },
      {
        'input.basePrice': ['The base price must be between 0 and 9999999999.99.'],
        'input.currency': ['The currency must be an ISO 4217 currency code, such as EUR or USD.'],
        'input.steps.0.components.0.minSelections': ['The min selections must not be greater than the max selections.'],
      },
    );
    await refused(
      CREATE,
      { input: chair('R-BAD', { basePrice: 1.005 }) },
      {
        'input.basePrice': ['The base price must have at most 2 decimals.'],
      },
    );
  });

  it('the granular updates change each field; a bound is checked against the stored other one', async () => {
    const p = (await mutate(t, admin, CREATE, { input: chair('R-2', { rules: [] }) })).createProduct;
    const updated = await mutate(
      t,
      admin,
      `mutation ($id: ID!) { updateProduct(id: $id, input: { basePrice: 12.5, currency: "GBP" }) { basePrice currency } }`,
      { id: p.id },
    );
    expect(updated.updateProduct).toEqual({ basePrice: 12.5, currency: 'GBP' });
    const step = await mutate(
      t,
      admin,
      `mutation ($id: ID!) { updateStep(id: $id, input: { required: false }) { required } }`,
      {
        id: p.steps[0].id,
      },
    );
    expect(step.updateStep.required).toBe(false);
    const component = p.steps[0].components[0].id;
    const UPDATE_COMPONENT = `mutation ($id: ID!, $input: UpdateComponentInput!) {
      updateComponent(id: $id, input: $input) { minSelections maxSelections } }`;
    await refused(
      UPDATE_COMPONENT,
      { id: component, input: { minSelections: 2 } },
      {
        'input.minSelections': ['The min selections must not be greater than the max selections.'],
      },
    );
    expect(
      (await mutate(t, admin, UPDATE_COMPONENT, { id: component, input: { maxSelections: null, minSelections: 2 } }))
        .updateComponent,
    ).toEqual({ minSelections: 2, maxSelections: null });
    expect(
      (await mutate(t, admin, UPDATE_COMPONENT, { id: component, input: { minSelections: 0 } })).updateComponent,
    ).toEqual({ minSelections: 0, maxSelections: null });
    const x = p.steps[1].components[0].customisations[0].id;
    const mode = await mutate(
      t,
      admin,
      `mutation ($id: ID!) { updateCustomisation(id: $id, input: { priceMode: REPLACE_BASE }) { priceMode } }`,
      { id: x },
    );
    expect(mode.updateCustomisation.priceMode).toBe('REPLACE_BASE');
  });
});

describe('rules in whole-product writes', () => {
  it('createProduct resolves CustomisationRef ends; Product.rules is ordered by id', async () => {
    const p = (await mutate(t, admin, CREATE, { input: chair('R-3') })).createProduct;
    const ids = byName(p);
    expect(p.rules).toEqual([
      {
        id: expect.any(String),
        kind: 'EXCLUDES',
        message: 'One finish only.',
        customisation: { id: ids.Oak, name: 'Oak' },
        other: { id: ids.Walnut, name: 'Walnut' },
      },
      {
        id: expect.any(String),
        kind: 'REQUIRES',
        message: null,
        customisation: { id: ids.Engraving, name: 'Engraving' },
        other: { id: ids.Large, name: 'Large' },
      },
    ]);
    expect(BigInt(p.rules[0].id) < BigInt(p.rules[1].id)).toBe(true);
  });

  it('refuses an end that names nothing or several, a rule on itself and a duplicate (EXCLUDES either way)', async () => {
    const input = chair('R-BAD-RULES');
    input.steps[1]!.components[0]!.customisations.push({ name: 'Oak', type: 'colour', price: 11 });
    input.rules = [
      { kind: 'REQUIRES', customisation: ref(9, 1, 'Oak'), other: ref(1, 1, 'Large') },
      { kind: 'REQUIRES', customisation: ref(2, 1, 'Oak'), other: ref(1, 1, 'Large') },
      { kind: 'REQUIRES', customisation: ref(1, 1, 'Large'), other: ref(1, 1, ' Large ') },
      { kind: 'EXCLUDES', customisation: ref(1, 1, 'Small'), other: ref(2, 1, 'Walnut') },
      { kind: 'EXCLUDES', customisation: ref(2, 1, 'Walnut'), other: ref(1, 1, 'Small') },
    ] as never;
    await refused(
      CREATE,
      { input },
      {
        'input.rules.0.customisation': ['The customisation names no customisation of the product.'],
        'input.rules.1.customisation': ['The customisation names 2 customisations of the product; it must name one.'],
        'input.rules.2.other': ['A rule cannot join a customisation to itself.'],
        'input.rules.4': ['The rule repeats input.rules.3.'],
      },
    );
    const { rows } = await sql`SELECT 1 FROM products WHERE sku = 'R-BAD-RULES'`.execute(t.database.handle.db);
    expect(rows).toEqual([]);
  });

  it('bounds the rules per product (CATALOG_MAX_RULES_PER_PRODUCT)', async () => {
    const input = chair('R-MANY');
    input.rules = [
      { kind: 'REQUIRES', customisation: ref(2, 1, 'Oak'), other: ref(1, 1, 'Large') },
      { kind: 'REQUIRES', customisation: ref(2, 1, 'Walnut'), other: ref(1, 1, 'Large') },
      { kind: 'REQUIRES', customisation: ref(2, 1, 'Engraving'), other: ref(1, 1, 'Large') },
      { kind: 'REQUIRES', customisation: ref(2, 1, 'Oak'), other: ref(1, 1, 'Small') },
      { kind: 'EXCLUDES', customisation: ref(2, 1, 'Oak'), other: ref(1, 1, 'Small') },
      { kind: 'EXCLUDES', customisation: ref(2, 1, 'Oak'), other: ref(1, 1, 'Large') },
    ] as never;
    await refused(CREATE, { input }, { 'input.rules': ['The rules must not have more than 5 items.'] });
  });

  it('upsert keeps matched rules with their ids, deletes the others, and the same input changes nothing', async () => {
    const first = (await mutate(t, admin, UPSERT, { input: chair('R-UP') })).upsertProduct;
    const again = (await mutate(t, admin, UPSERT, { input: chair('R-UP') })).upsertProduct;
    expect(again).toEqual(first);

    // The EXCLUDES turned round is the same rule: it keeps its id. The REQUIRES goes, a new one comes.
    const changed = chair('R-UP', {
      rules: [
        { kind: 'EXCLUDES', customisation: ref(2, 1, 'Walnut'), other: ref(2, 1, 'Oak'), message: 'One finish only.' },
        { kind: 'REQUIRES', customisation: ref(2, 1, 'Engraving'), other: ref(1, 1, 'Small') },
      ],
    });
    const second = (await mutate(t, admin, UPSERT, { input: changed })).upsertProduct;
    const ids = byName(first);
    expect(second.rules[0]).toMatchObject({
      id: first.rules[0].id,
      customisation: { id: ids.Walnut },
      other: { id: ids.Oak },
    });
    expect(second.rules[1]).toMatchObject({ kind: 'REQUIRES', other: { id: ids.Small } });
    expect(second.rules[1].id).not.toBe(first.rules[1].id);
    expect(Date.parse(second.updatedAt)).toBeGreaterThan(Date.parse(first.updatedAt));

    // Rules alone changing (the tree equal) is a change too; omitted rules, base price and currency take their defaults.
    const { rules: _rules, basePrice: _price, currency: _currency, ...plain } = chair('R-UP');
    const third = (await mutate(t, admin, UPSERT, { input: plain })).upsertProduct;
    expect(third).toMatchObject({ rules: [], basePrice: 0, currency: 'USD' });
    expect(Date.parse(third.updatedAt)).toBeGreaterThan(Date.parse(second.updatedAt));
    const { rows } =
      await sql`SELECT count(*)::int AS n FROM configuration_rules r JOIN products p ON p.id = r.product_id
      WHERE p.sku = 'R-UP'`.execute(t.database.handle.db);
    expect(rows).toEqual([{ n: 0 }]);
  });

  it('deleting an end deletes the rule', async () => {
    const p = (await mutate(t, admin, CREATE, { input: chair('R-END') })).createProduct;
    await mutate(t, admin, `mutation ($id: ID!) { deleteCustomisation(id: $id) { id } }`, { id: byName(p).Walnut });
    const read = await mutate(t, admin, `query ($id: ID!) { product(id: $id) { rules { kind } } }`, { id: p.id });
    expect(read.product.rules).toEqual([{ kind: 'REQUIRES' }]);
  });
});

describe('createRule and deleteRule', () => {
  it('create and delete a rule, moving the product updatedAt each time', async () => {
    const p = (await mutate(t, admin, CREATE, { input: chair('R-G', { rules: [] }) })).createProduct;
    const ids = byName(p);
    const created = (
      await mutate(t, admin, CREATE_RULE, {
        productId: p.id,
        input: { kind: 'EXCLUDES', customisationId: ids.Oak, otherCustomisationId: ids.Engraving, message: ' No. ' },
      })
    ).createRule;
    expect(created).toMatchObject({
      kind: 'EXCLUDES',
      message: 'No.',
      customisation: { id: ids.Oak },
      other: { id: ids.Engraving },
    });
    const READ = `query ($id: ID!) { product(id: $id) { updatedAt rules { id } } }`;
    const afterCreate = (await mutate(t, admin, READ, { id: p.id })).product;
    expect(afterCreate.rules).toEqual([{ id: created.id }]);
    expect(Date.parse(afterCreate.updatedAt)).toBeGreaterThan(Date.parse(p.updatedAt));

    expect((await mutate(t, admin, DELETE_RULE, { id: created.id })).deleteRule).toEqual({
      id: created.id,
      kind: 'EXCLUDES',
    });
    const afterDelete = (await mutate(t, admin, READ, { id: p.id })).product;
    expect(afterDelete.rules).toEqual([]);
    expect(Date.parse(afterDelete.updatedAt)).toBeGreaterThan(Date.parse(afterCreate.updatedAt));

    const missing = await t.graphql(DELETE_RULE, { token: admin, variables: { id: created.id } });
    expect(missing.body.errors[0].extensions.code).toBe('NOT_FOUND');
  });

  it('refuses an end of another product, a rule on itself, a duplicate and one rule too many', async () => {
    const p = (await mutate(t, admin, CREATE, { input: chair('R-G2') })).createProduct;
    const other = (await mutate(t, admin, CREATE, { input: chair('R-G3', { rules: [] }) })).createProduct;
    const ids = byName(p);
    const input = (a: string, b: string, kind = 'EXCLUDES') => ({
      productId: p.id,
      input: { kind, customisationId: a, otherCustomisationId: b },
    });
    await refused(CREATE_RULE, input(ids.Oak, byName(other).Walnut), {
      'input.otherCustomisationId': ['The selected customisation is not a customisation of the product.'],
    });
    await refused(CREATE_RULE, input(ids.Oak, ids.Oak), {
      'input.otherCustomisationId': ['A rule cannot join a customisation to itself.'],
    });
    // EXCLUDES (Walnut, Oak) is the stored EXCLUDES (Oak, Walnut).
    await refused(CREATE_RULE, input(ids.Walnut, ids.Oak), { input: ['The product already has this rule.'] });
    await mutate(t, admin, CREATE_RULE, input(ids.Walnut, ids.Small, 'REQUIRES'));
    await mutate(t, admin, CREATE_RULE, input(ids.Walnut, ids.Large, 'REQUIRES'));
    await mutate(t, admin, CREATE_RULE, input(ids.Oak, ids.Large, 'REQUIRES'));
    await refused(CREATE_RULE, input(ids.Oak, ids.Small, 'REQUIRES'), {
      input: ['A product may have at most 5 rules; it has 5.'],
    });
  });

  it('refuses an end that an export could not name: its step order, component position and name are not unique', async () => {
    const input = chair('R-G4', { rules: [] });
    input.steps[1].components[0].customisations.push({ name: 'Oak', type: 'colour', price: 12 });
    const p = (await mutate(t, admin, CREATE, { input })).createProduct;
    const [oak] = p.steps[1].components[0].customisations;
    await refused(
      CREATE_RULE,
      { productId: p.id, input: { kind: 'EXCLUDES', customisationId: byName(p).Walnut, otherCustomisationId: oak.id } },
      {
        'input.otherCustomisationId': [
          'Another customisation of the product has the same step order, component position and name: rename one first.',
        ],
      },
    );
  });

  it('a granular write may not make a rule end ambiguous (a rename, a new customisation, a moved component)', async () => {
    const p = (await mutate(t, admin, CREATE, { input: chair('R-G5') })).createProduct;
    const ids = byName(p);
    const message = (name: string, step: number) =>
      `A rule names the customisation "${name}" (step ${step}, component position 1), and this would give another customisation the same step order, component position and name: choose another, or delete the rule first.`;
    await refused(
      `mutation ($id: ID!) { updateCustomisation(id: $id, input: { name: "Oak" }) { id } }`,
      { id: ids.Engraving },
      { 'input.name': [message('Oak', 2)] },
    );
    await refused(
      `mutation ($id: ID!) { createCustomisation(componentId: $id, input: { name: "Walnut", type: "colour", price: 1 }) { id } }`,
      { id: p.steps[1].components[0].id },
      { 'input.name': [message('Walnut', 2)] },
    );
    await refused(
      `mutation ($id: ID!) { createComponent(stepId: $id, input: { name: "Size 2", position: 1, customisations: [{ name: "Large", type: "t", price: 1 }] }) { id } }`,
      { id: p.steps[0].id },
      { 'input.customisations': [message('Large', 1)] },
    );
    // A name no rule uses may repeat, as before rules existed.
    await mutate(
      t,
      admin,
      `mutation ($id: ID!) { createCustomisation(componentId: $id, input: { name: "Small", type: "t", price: 1 }) { id } }`,
      { id: p.steps[0].components[0].id },
    );
  });

  it('needs catalog:write', async () => {
    const res = await t.graphql(DELETE_RULE, { token: user, variables: { id: '1' } });
    expect(res.body.errors[0].extensions.code).toBe('FORBIDDEN');
  });
});

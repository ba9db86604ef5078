import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.ts';
import { adminAndUserTokens, mutate } from '../support/catalog-writes.ts';
import { FEDERATION_SECRET, GATEWAY_HEADERS, postGraphQL } from '../support/edge.ts';

// A configurator session over HTTP on a real database: check, fix, save, read back as someone else,
// then watch a price change move currentPrice and changedSince while the saved price stays.

const SECRET_VALUE = 'Engraved-for-Anna-7f3c';

const CHECK = `query ($productId: ID!, $selections: [SelectionInput!]!) {
  configure(productId: $productId, selections: $selections) {
    product { id basePrice currency rules { id kind message customisation { id } other { id } }
      steps { id required components { id minSelections maxSelections customisations { id priceMode } } } }
    valid
    violations { code message stepId componentId customisationId otherCustomisationId }
    price { base { amount currency } lines { customisationId name mode amount { amount currency } customisation { id price } } total { amount currency } }
  }
}`;

const CONFIGURATION = `id productId product { id } createdAt valid changedSince
  selections { customisationId name value mode price { amount currency } }
  price { base { amount } lines { customisationId name amount { amount } customisation { id } } total { amount currency } }
  currentPrice { total { amount } }`;

const SAVE = `mutation ($productId: ID!, $selections: [SelectionInput!]!) {
  saveConfiguration(productId: $productId, selections: $selections) { ${CONFIGURATION} }
}`;
const READ = `query ($id: ID!) { configuration(id: $id) { ${CONFIGURATION} } }`;

let t: TestApp;
let admin: string;
let user: string;
let product: { id: string; frame: { red: string; gold: string }; engraving: { text: string }; steps: string[] };

async function tokenWith(abilities: string[]): Promise<string> {
  const u = await t.createUser();
  const bearer = await t.login(u.email, u.password);
  await sql`UPDATE personal_access_tokens SET abilities = ${JSON.stringify(abilities)}::jsonb WHERE id = ${bearer.split('|')[0]}`.execute(
    t.database.handle.db,
  );
  return bearer;
}

beforeAll(async () => {
  t = await startTestApp({ env: { FEDERATION_SECRET } });
  ({ admin, user } = await adminAndUserTokens(t));
  const data = await mutate(
    t,
    admin,
    `mutation ($input: CreateProductInput!) { createProduct(input: $input) { id steps { id components { id customisations { id name } } } } }`,
    {
      input: {
        name: 'Picture frame',
        sku: 'FRAME-1',
        steps: [
          {
            name: 'Frame',
            order: 1,
            components: [
              {
                name: 'Finish',
                position: 1,
                customisations: [
                  { name: 'Red', type: 'colour', price: 10 },
                  { name: 'Gold', type: 'colour', price: 25.5 },
                ],
              },
            ],
          },
          {
            name: 'Engraving',
            order: 2,
            components: [
              { name: 'Text', position: 1, customisations: [{ name: 'Engraving', type: 'text', price: 5 }] },
            ],
          },
        ],
      },
    },
  );
  const p = data.createProduct;
  const [red, gold] = p.steps[0].components[0].customisations.map((c: { id: string }) => c.id);
  const text = p.steps[1].components[0].customisations[0].id;
  product = { id: p.id, frame: { red, gold }, engraving: { text }, steps: p.steps.map((s: { id: string }) => s.id) };
  // Set in the tables: this file is about configure; authoring them through the mutations is catalog-rules.test.ts's.
  const db = t.database.handle.db;
  await sql`UPDATE products SET base_price = 100 WHERE id = ${product.id}`.execute(db);
  await sql`UPDATE steps SET required = true WHERE id = ${product.steps[1]}`.execute(db);
  await sql`
    INSERT INTO configuration_rules (product_id, kind, customisation_id, other_customisation_id, message)
    VALUES (${product.id}, 'REQUIRES', ${gold}, ${text}, NULL), (${product.id}, 'EXCLUDES', ${red}, ${text}, 'Red frames cannot be engraved.')
  `.execute(db);
});
afterAll(() => t?.close());

describe('configure', () => {
  it('reports violations in order and prices the selection anyway', async () => {
    const res = await t.graphql(CHECK, {
      token: user,
      variables: {
        productId: product.id,
        selections: [{ customisationId: product.frame.gold }, { customisationId: '999999' }],
      },
    });
    expect(res.body.errors).toBeUndefined();
    const check = res.body.data.configure;
    expect(check.valid).toBe(false);
    expect(check.violations).toEqual([
      {
        code: 'UNKNOWN_CUSTOMISATION',
        message: 'Customisation "999999" is not part of this product.',
        stepId: null,
        componentId: null,
        customisationId: '999999',
        otherCustomisationId: null,
      },
      {
        code: 'REQUIRES',
        message: '"Gold" requires "Engraving".',
        stepId: product.steps[0],
        componentId: expect.any(String),
        customisationId: product.frame.gold,
        otherCustomisationId: product.engraving.text,
      },
      {
        code: 'STEP_REQUIRED',
        message: 'Step "Engraving" needs at least one choice.',
        stepId: product.steps[1],
        componentId: null,
        customisationId: null,
        otherCustomisationId: null,
      },
    ]);
    expect(check.price).toEqual({
      base: { amount: '100.00', currency: 'EUR' },
      lines: [
        {
          customisationId: product.frame.gold,
          name: 'Gold',
          mode: 'ADD',
          amount: { amount: '25.50', currency: 'EUR' },
          customisation: { id: product.frame.gold, price: 25.5 },
        },
      ],
      total: { amount: '125.50', currency: 'EUR' },
    });
    expect(check.product).toMatchObject({ id: product.id, basePrice: 100, currency: 'EUR' });
    expect(check.product.rules.map((r: { kind: string; message: string | null }) => [r.kind, r.message])).toEqual([
      ['REQUIRES', null],
      ['EXCLUDES', 'Red frames cannot be engraved.'],
    ]);
    expect(check.product.steps.map((s: { required: boolean }) => s.required)).toEqual([false, true]);
    expect(check.product.steps[0].components[0]).toMatchObject({ minSelections: 0, maxSelections: 1 });
    expect(check.product.steps[0].components[0].customisations[0].priceMode).toBe('ADD');
  });

  it('prices in exact cents from the database: 0.10 + 0.20 on the largest base', async () => {
    // numeric(12,2) at its largest and the classic float trap: read as cents, summed as whole numbers.
    const created = await mutate(
      t,
      admin,
      `mutation ($input: CreateProductInput!) {
        createProduct(input: $input) { id steps { components { customisations { id } } } } }`,
      {
        input: {
          name: 'Cents',
          sku: 'CENTS-1',
          basePrice: 9999999999.99,
          steps: [
            {
              name: 'Options',
              order: 1,
              components: [
                {
                  name: 'Extras',
                  position: 1,
                  maxSelections: null,
                  customisations: [
                    { name: 'Ten', type: 'dropdown', price: 0.1 },
                    { name: 'Twenty', type: 'dropdown', price: 0.2 },
                    { name: 'Largest', type: 'dropdown', price: 9999999999.99 },
                  ],
                },
              ],
            },
          ],
        },
      },
    );
    const productId: string = created.createProduct.id;
    const ids: string[] = created.createProduct.steps[0].components[0].customisations.map((c: { id: string }) => c.id);
    const selections = ids.map((customisationId) => ({ customisationId }));
    const res = await t.graphql(CHECK, { token: user, variables: { productId, selections } });
    expect(res.body.errors).toBeUndefined();
    const { price, product: read } = res.body.data.configure;
    expect(read.basePrice).toBe(9999999999.99);
    expect(price.base.amount).toBe('9999999999.99');
    expect(price.lines.map((l: { amount: { amount: string } }) => l.amount.amount)).toEqual([
      '0.10',
      '0.20',
      '9999999999.99',
    ]);
    // The Float fields still answer the nearest double, which prints as the stored decimal.
    expect(price.lines.map((l: { customisation: { price: number } }) => l.customisation.price)).toEqual([
      0.1, 0.2, 9999999999.99,
    ]);
    expect(price.total.amount).toBe('20000000000.28');

    const two = await t.graphql(CHECK, { token: user, variables: { productId, selections: selections.slice(0, 2) } });
    expect(two.body.data.configure.price.total.amount).toBe('10000000000.29');
  });

  it('a rule message, a missing value; then the fixed selection is valid', async () => {
    const bad = await t.graphql(CHECK, {
      token: user,
      variables: {
        productId: product.id,
        selections: [{ customisationId: product.frame.red }, { customisationId: product.engraving.text, value: '  ' }],
      },
    });
    expect(
      bad.body.data.configure.violations.map((v: { code: string; message: string }) => [v.code, v.message]),
    ).toEqual([
      ['EXCLUDES', 'Red frames cannot be engraved.'],
      ['VALUE_REQUIRED', '"Engraving" needs a value of 1 to 1000 characters.'],
    ]);
    const good = await t.graphql(CHECK, {
      token: user,
      variables: {
        productId: product.id,
        selections: [
          { customisationId: product.engraving.text, value: SECRET_VALUE },
          { customisationId: product.frame.gold },
        ],
      },
    });
    expect(good.body.data.configure).toMatchObject({
      valid: true,
      violations: [],
      price: { total: { amount: '130.50' } },
    });
  });

  it('is shared through the response cache, and a rule change (even from outside the service) empties it', async () => {
    const selections = [
      { customisationId: product.frame.gold },
      { customisationId: product.engraving.text, value: 'cache' },
    ];
    const variables = { productId: product.id, selections };
    const first = await t.graphql(CHECK, { token: user, variables });
    expect(first.body.data.configure.valid).toBe(true);
    const other = await tokenWith(['*']);
    t.database.queries.reset();
    expect((await t.graphql(CHECK, { token: other, variables })).body).toEqual(first.body);
    expect(t.database.queries.statements.filter((q) => !/personal_access_tokens/.test(q))).toEqual([]);

    const db = t.database.handle.db;
    const rule = await sql<{ id: string }>`
      INSERT INTO configuration_rules (product_id, kind, customisation_id, other_customisation_id)
      VALUES (${product.id}, 'EXCLUDES', ${product.frame.gold}, ${product.engraving.text}) RETURNING id`.execute(db);
    const deadline = Date.now() + 2_000;
    let body = first.body;
    while (body.data.configure.valid && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 20));
      body = (await t.graphql(CHECK, { token: user, variables })).body;
    }
    expect(body.data.configure.violations.map((v: { code: string }) => v.code)).toEqual(['EXCLUDES']);
    await sql`DELETE FROM configuration_rules WHERE id = ${rule.rows[0]!.id}`.execute(db);
  });

  it('null for an unknown or malformed product id; more than 1000 selections is bad input', async () => {
    for (const productId of ['999999', 'abc']) {
      const res = await t.graphql(CHECK, { token: user, variables: { productId, selections: [] } });
      expect(res.body).toEqual({ data: { configure: null } });
    }
    const many = Array.from({ length: 1001 }, () => ({ customisationId: product.frame.red }));
    const res = await t.graphql(CHECK, { token: user, variables: { productId: product.id, selections: many } });
    expect(res.body.errors[0].extensions).toMatchObject({
      code: 'BAD_USER_INPUT',
      validation: { selections: ['At most 1000 selections are allowed, got 1001.'] },
    });
  });
});

describe('saved configurations', () => {
  it('a session: refused while invalid, saved once fixed, read by another user, priced again after a change', async () => {
    const refused = await t.graphql(SAVE, {
      token: user,
      variables: { productId: product.id, selections: [{ customisationId: product.frame.gold }] },
    });
    expect(refused.body.data).toBeNull();
    expect(refused.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
    expect(refused.body.errors[0].extensions.violations.map((v: { code: string }) => v.code)).toEqual([
      'REQUIRES',
      'STEP_REQUIRED',
    ]);
    const count = async () =>
      Number(
        (await sql<{ n: string }>`SELECT count(*) AS n FROM configurations`.execute(t.database.handle.db)).rows[0]!.n,
      );
    expect(await count()).toBe(0);

    const selections = [
      { customisationId: product.engraving.text, value: SECRET_VALUE },
      { customisationId: product.frame.gold },
    ];
    const saved = (await mutate(t, user, SAVE, { productId: product.id, selections })).saveConfiguration;
    expect(saved.id).toMatch(/^[A-Za-z0-9]{12}$/);
    expect(saved).toMatchObject({
      productId: product.id,
      valid: true,
      changedSince: false,
      price: { total: { amount: '130.50', currency: 'EUR' } },
    });
    expect(saved.selections).toEqual([
      {
        customisationId: product.frame.gold,
        name: 'Gold',
        value: null,
        mode: 'ADD',
        price: { amount: '25.50', currency: 'EUR' },
      },
      {
        customisationId: product.engraving.text,
        name: 'Engraving',
        value: SECRET_VALUE,
        mode: 'ADD',
        price: { amount: '5.00', currency: 'EUR' },
      },
    ]);
    const again = (await mutate(t, user, SAVE, { productId: product.id, selections })).saveConfiguration;
    expect(again.id).not.toBe(saved.id);

    const other = await tokenWith(['catalog:read']);
    const read = (await mutate(t, other, READ, { id: saved.id })).configuration;
    expect(read).toEqual(saved);
    expect(read.currentPrice.total.amount).toBe('130.50');

    await mutate(t, admin, `mutation ($id: ID!) { updateCustomisation(id: $id, input: { price: 30 }) { id } }`, {
      id: product.frame.gold,
    });
    const after = (await mutate(t, other, READ, { id: saved.id })).configuration;
    expect(after.price).toEqual(saved.price);
    expect(after.selections).toEqual(saved.selections);
    expect(after.currentPrice.total.amount).toBe('135.00');
    expect(after.changedSince).toBe(true);
    expect(after.valid).toBe(true);

    // Customer text never reaches the logs.
    expect(t.logs.text).toContain('configuration saved');
    expect(t.logs.text).not.toContain(SECRET_VALUE);
  });

  it('is a federation entity: the gateway resolves references by id', async () => {
    const selections = [{ customisationId: product.engraving.text, value: 'ref' }];
    const { id } = (await mutate(t, user, SAVE, { productId: product.id, selections })).saveConfiguration;
    const res = await postGraphQL(
      t,
      user,
      {
        query: `query ($r: [_Any!]!) { _entities(representations: $r) { __typename ... on Configuration { id productId price { total { amount } } } } }`,
        variables: {
          r: [
            { __typename: 'Configuration', id },
            { __typename: 'Configuration', id: 'nope' },
          ],
        },
      },
      GATEWAY_HEADERS,
    );
    expect(res.body).toEqual({
      data: {
        _entities: [
          {
            __typename: 'Configuration',
            id,
            productId: product.id,
            price: { total: { amount: expect.stringMatching(/^\d+\.\d{2}$/) } },
          },
          null,
        ],
      },
    });
  });

  it('unknown and malformed ids are null alike', async () => {
    for (const id of ['AAAAAAAAAAAA', 'short', "x' OR 1=1 --", 'ÄÄÄÄÄÄÄÄÄÄÄÄ']) {
      expect((await t.graphql(READ, { token: user, variables: { id } })).body).toEqual({
        data: { configuration: null },
      });
    }
  });

  it('abilities: a catalog:read token cannot save; only catalog:write deletes', async () => {
    const reader = await tokenWith(['catalog:read']);
    const selections = [{ customisationId: product.engraving.text, value: 'x' }];
    const res = await t.graphql(SAVE, { token: reader, variables: { productId: product.id, selections } });
    expect(res.status).toBe(403);
    expect(res.body.errors[0].extensions.code).toBe('FORBIDDEN');
    const writerOnly = await tokenWith(['configurations:write']);
    expect(
      (await t.graphql(SAVE, { token: writerOnly, variables: { productId: product.id, selections } })).status,
    ).toBe(403);
    const saver = await tokenWith(['configurations:write', 'catalog:read']);
    const { id } = (await mutate(t, saver, SAVE, { productId: product.id, selections })).saveConfiguration;

    const del = `mutation ($id: ID!) { deleteConfiguration(id: $id) { id } }`;
    expect((await t.graphql(del, { token: saver, variables: { id } })).status).toBe(403);
    expect((await mutate(t, admin, del, { id })).deleteConfiguration.id).toBe(id);
    expect((await t.graphql(READ, { token: user, variables: { id } })).body.data.configuration).toBeNull();
    for (const gone of [id, 'not-an-id']) {
      const missing = await t.graphql(del, { token: admin, variables: { id: gone } });
      expect(missing.body.errors[0]).toMatchObject({
        message: `No configuration with id "${gone}".`,
        extensions: { code: 'NOT_FOUND' },
      });
    }
  });

  it('outlives its product: the snapshot answers, the live parts are gone', async () => {
    const selections = [{ customisationId: product.engraving.text, value: 'keep' }];
    const { id } = (await mutate(t, user, SAVE, { productId: product.id, selections })).saveConfiguration;
    await mutate(t, admin, `mutation ($id: ID!) { deleteProduct(id: $id) { id } }`, { id: product.id });
    const read = (await mutate(t, user, READ, { id })).configuration;
    expect(read).toMatchObject({
      productId: product.id,
      product: null,
      currentPrice: null,
      valid: false,
      changedSince: true,
    });
    expect(read.price.lines).toEqual([
      { customisationId: product.engraving.text, name: 'Engraving', amount: { amount: '5.00' }, customisation: null },
    ]);
    const res = await t.graphql(SAVE, { token: user, variables: { productId: product.id, selections } });
    expect(res.body.errors[0].extensions.code).toBe('NOT_FOUND');
  });
});

describe('save bound', () => {
  let limited: TestApp;
  beforeAll(async () => {
    limited = await startTestApp({ env: { CONFIGURATION_SAVES_PER_MINUTE: '2' } });
  });
  afterAll(() => limited?.close());

  it("refuses a user's saves beyond the bound with 429 and Retry-After; other users are not affected", async () => {
    const { admin: a, user: u } = await adminAndUserTokens(limited);
    const created = await mutate(
      limited,
      a,
      `mutation { createProduct(input: { name: "P", sku: "P-1", steps: [{ name: "S", order: 1, components: [{ name: "C", position: 1, customisations: [{ name: "X", type: "colour", price: 1 }] }] }] }) { id steps { components { customisations { id } } } } }`,
    );
    const productId = created.createProduct.id;
    const selections = [{ customisationId: created.createProduct.steps[0].components[0].customisations[0].id }];
    for (let i = 0; i < 2; i++) await mutate(limited, u, SAVE, { productId, selections });
    const res = await limited.graphql(SAVE, { token: u, variables: { productId, selections } });
    expect(res.status).toBe(429);
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(Number(res.headers.get('retry-after'))).toBeLessThanOrEqual(60);
    expect(res.body.errors[0].extensions.code).toBe('TOO_MANY_REQUESTS');
    await mutate(limited, a, SAVE, { productId, selections });
  });
});

describe('rules in the catalogue: one stamp per write, the product counts, the answer bound', () => {
  let c: TestApp;
  let productId: string;
  let customisations: string[];
  beforeAll(async () => {
    c = await startTestApp({ env: { GRAPHQL_MAX_ANSWER_FIELDS: '100' } });
    const { admin: a } = await adminAndUserTokens(c);
    const six = Array.from({ length: 6 }, (_, i) => `{ name: "X${i}", type: "colour", price: 1 }`).join(', ');
    const created = await mutate(
      c,
      a,
      `mutation { createProduct(input: { name: "R", sku: "R-1", steps: [{ name: "S", order: 1, components: [{ name: "C", position: 1, customisations: [${six}] }] }] }) { id steps { components { customisations { id } } } } }`,
    );
    productId = created.createProduct.id;
    customisations = created.createProduct.steps[0].components[0].customisations.map((x: { id: string }) => x.id);
  });
  afterAll(() => c?.close());

  it('a rule and a step written in one transaction: the product takes the write’s one stamp, and counts the step', async () => {
    const db = c.database.handle.db;
    const stamp = async () =>
      (
        await sql<{
          ms: number;
          steps: number;
        }>`SELECT (extract(epoch FROM updated_at) * 1000)::float8 AS ms, step_count AS steps FROM products WHERE id = ${productId}`.execute(
          db,
        )
      ).rows[0]!;
    const before = await stamp();
    const stepMs = await db.transaction().execute(async (trx) => {
      await sql`INSERT INTO configuration_rules (product_id, kind, customisation_id, other_customisation_id) VALUES (${productId}, 'REQUIRES', ${customisations[0]}, ${customisations[1]})`.execute(
        trx,
      );
      const step = await sql<{ ms: number }>`
        INSERT INTO steps (product_id, name, "order") VALUES (${productId}, 'Extra', 2) RETURNING (extract(epoch FROM updated_at) * 1000)::float8 AS ms`.execute(
        trx,
      );
      return step.rows[0]!.ms;
    });
    const after = await stamp();
    expect(after.ms).toBeGreaterThan(before.ms);
    expect(after.ms).toBe(stepMs);
    expect([before.steps, after.steps]).toEqual([1, 2]);
    // A rule deleted alone still moves the product forward.
    await sql`DELETE FROM configuration_rules WHERE product_id = ${productId}`.execute(db);
    expect((await stamp()).ms).toBeGreaterThan(after.ms);
  });

  it('rules are priced at their real number: 30 rules of 6 fields are over a bound of 100, their ids are not', async () => {
    const db = c.database.handle.db;
    for (const x of customisations) {
      for (const y of customisations) {
        if (x !== y)
          await sql`INSERT INTO configuration_rules (product_id, kind, customisation_id, other_customisation_id) VALUES (${productId}, 'REQUIRES', ${x}, ${y})`.execute(
            db,
          );
      }
    }
    const wide = await c.graphql(
      `{ product(id: "${productId}") { rules { id kind customisation { id name } other { id } } } }`,
      { token: (await adminAndUserTokens(c)).user },
    );
    expect(wide.body.data).toBeUndefined();
    expect(wide.body.errors[0].message).toMatch(/^Answer size limit of 100 fields exceeded, found at least \d+\./);
    const ids = await c.graphql(`{ product(id: "${productId}") { rules { id } } }`, {
      token: (await adminAndUserTokens(c)).user,
    });
    expect(ids.body.errors).toBeUndefined();
    expect(ids.body.data.product.rules).toHaveLength(30);
  });
});

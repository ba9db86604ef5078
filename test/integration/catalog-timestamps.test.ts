import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.ts';
import { adminAndUserTokens, mutate, productInput, TREE } from '../support/catalog-writes.ts';

// One timestamp per write: every row a write touches and the product it belongs to share one
// updatedAt, strictly later than the product's previous one, so a single writer passing back the
// updatedAt it was given is never told CONFLICT.

let t: TestApp;
let admin: string;

beforeAll(async () => {
  t = await startTestApp();
  ({ admin } = await adminAndUserTokens(t));
});
afterAll(() => t.close());

const WRITES = [
  (id: { product: string; step: string; customisation: string }, i: number, expectedUpdatedAt: string) => ({
    query: `mutation ($id: ID!, $input: UpdateCustomisationInput!) { updateCustomisation(id: $id, input: $input) { updatedAt } }`,
    variables: { id: id.customisation, input: { price: (i % 50) + 0.25, expectedUpdatedAt } },
    field: 'updateCustomisation',
  }),
  (id: { product: string; step: string; customisation: string }, i: number, expectedUpdatedAt: string) => ({
    query: `mutation ($id: ID!, $input: UpdateStepInput!) { updateStep(id: $id, input: $input) { updatedAt } }`,
    variables: { id: id.step, input: { name: `Step v${i}`, expectedUpdatedAt } },
    field: 'updateStep',
  }),
  (id: { product: string; step: string; customisation: string }, i: number, expectedUpdatedAt: string) => ({
    query: `mutation ($id: ID!, $input: UpdateProductInput!) { updateProduct(id: $id, input: $input) { updatedAt } }`,
    variables: { id: id.product, input: { name: `Product v${i}`, expectedUpdatedAt } },
    field: 'updateProduct',
  }),
];

describe('one timestamp per write', () => {
  it('100 sequential writes, each passing back the updatedAt the previous one returned: no CONFLICT, strictly increasing', async () => {
    const { createProduct: created } = await mutate(
      t,
      admin,
      `mutation ($input: CreateProductInput!) { createProduct(input: $input) { ${TREE} } }`,
      {
        input: productInput('ONE-TS-1', { steps: 2, components: 2, customisations: 2 }),
      },
    );
    const ids = {
      product: created.id,
      step: created.steps[0].id,
      customisation: created.steps[0].components[0].customisations[0].id,
    };

    let previous = created.updatedAt as string;
    const conflicts: string[] = [];
    for (let i = 0; i < 100; i++) {
      const write = WRITES[i % 3]!(ids, i, previous);
      const res = await t.graphql(write.query, { token: admin, variables: write.variables });
      if (res.body.errors) {
        conflicts.push(`${write.field} #${i}: ${res.body.errors[0].message}`);
        previous = res.body.errors[0].extensions?.updatedAt ?? previous;
        continue;
      }
      const next = res.body.data[write.field].updatedAt as string;
      expect(Date.parse(next), `${write.field} #${i}`).toBeGreaterThan(Date.parse(previous));
      previous = next;
    }
    expect(conflicts).toEqual([]);

    const { product } = await mutate(t, admin, `query ($id: ID!) { product(id: $id) { updatedAt } }`, {
      id: ids.product,
    });
    expect(product.updatedAt).toBe(previous);

    // A new tree is one write too.
    const stamps = new Set([created.updatedAt, created.createdAt]);
    for (const s of created.steps) {
      stamps.add(s.updatedAt);
      for (const c of s.components) for (const x of c.customisations) stamps.add(x.updatedAt);
    }
    expect([...stamps]).toEqual([created.updatedAt]);
  });

  it('a write stamps the child and its product alike, also from outside the service (psql), and still moves forward within a millisecond', async () => {
    const { createProduct: created } = await mutate(
      t,
      admin,
      `mutation ($input: CreateProductInput!) { createProduct(input: $input) { ${TREE} } }`,
      {
        input: productInput('ONE-TS-2', { steps: 1, components: 1, customisations: 1 }),
      },
    );
    const db = t.database.handle.db;
    const customisationId = created.steps[0].components[0].customisations[0].id;
    const before = Date.parse(created.updatedAt);
    // Two writes in one transaction each: the child and its product get the same value, later than before.
    const rows = await db.transaction().execute(async (trx) => {
      await sql`UPDATE customisations SET price = price + 1 WHERE id = ${customisationId}::bigint`.execute(trx);
      await sql`UPDATE products SET name = name || '!' WHERE id = ${created.id}::bigint`.execute(trx);
      await sql`UPDATE steps SET name = name || '!' WHERE product_id = ${created.id}::bigint`.execute(trx);
      const { rows } = await sql<{ p: Date; x: Date; s: Date }>`
        SELECT p.updated_at AS p, x.updated_at AS x, s.updated_at AS s
        FROM products p JOIN steps s ON s.product_id = p.id JOIN components c ON c.step_id = s.id
        JOIN customisations x ON x.component_id = c.id WHERE x.id = ${customisationId}::bigint
      `.execute(trx);
      return rows;
    });
    const { p, x, s } = rows[0]!;
    expect(x.getTime()).toBe(p.getTime());
    expect(s.getTime()).toBe(p.getTime());
    expect(p.getTime()).toBeGreaterThan(before);

    // Back-to-back writes from psql, faster than the clock's millisecond: each product version is later.
    let last = p.getTime();
    for (let i = 0; i < 20; i++) {
      const {
        rows: [row],
      } = await sql<{ updated_at: Date }>`
        UPDATE products SET name = ${`rename ${i}`} WHERE id = ${created.id}::bigint RETURNING updated_at
      `.execute(db);
      expect(row!.updated_at.getTime()).toBeGreaterThan(last);
      last = row!.updated_at.getTime();
    }
  });
});

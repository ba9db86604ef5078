import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, UNCACHED, type TestApp } from '../support/app.ts';
import { adminAndUserTokens, mutate, productInput, TREE } from '../support/catalog-writes.ts';

// A step, component or customisation moved to another parent by SQL (no service write moves one) changes two
// products: the one it left and the one it joined. Both must look changed to every reader: their trees, their
// updatedAt (so `updatedAfter` syncs and saved configurations notice), the counts the answer bound prices
// their trees with, and the answers a running instance has cached.

const CREATE = `mutation ($input: CreateProductInput!) { createProduct(input: $input) { ${TREE} } }`;
const PRODUCT = `query ($id: ID!) { product(id: $id) { ${TREE} } }`;
const CHANGED = `query ($since: DateTime!) {
  products(first: 100, filter: { updatedAfter: $since }, orderBy: [{ column: UPDATED_AT }]) { data { id } } }`;
const SHAPE = { steps: 3, components: 2, customisations: 2 };

interface Tree {
  id: string;
  updatedAt: string;
  steps: { id: string; components: { id: string; customisations: { id: string }[] }[] }[];
}

/** Steps, components and customisations of a tree as read. */
const countsOf = (tree: Tree) => ({
  steps: tree.steps.length,
  components: tree.steps.flatMap((s) => s.components).length,
  customisations: tree.steps.flatMap((s) => s.components).flatMap((c) => c.customisations).length,
});

describe('a child moved to another parent by SQL', () => {
  let t: TestApp;
  /** Same database, an answer bound of one field: its refusal says what the stored counts price a tree at. */
  let bounded: TestApp;
  let admin: string;
  let reader: string;
  let serial = 0;

  /** The product's answer and the catalogue statements it cost (none when served from the cache). */
  const read = async (id: string) => {
    t.database.queries.reset();
    const res = await t.graphql(PRODUCT, { token: reader, variables: { id } });
    expect(res.body.errors, JSON.stringify(res.body.errors)).toBeUndefined();
    const statements = t.database.queries.statements.filter((s) => !/personal_access_tokens/.test(s)).length;
    return { product: res.body.data.product as Tree, statements };
  };
  /** Asked until served from the cache (the echo of an earlier write may drop the first answer kept). */
  const warm = async (id: string) => {
    for (let attempt = 0; attempt < 20; attempt++) {
      await read(id);
      const again = await read(id);
      if (again.statements === 0) return again.product;
    }
    throw new Error(`product ${id} never served from the cache`);
  };
  /** The answer once the cache no longer serves `stale` (the notification arrives after the commit). */
  const readChanged = async (id: string, stale: Tree) => {
    const deadline = Date.now() + 5_000;
    for (;;) {
      const { product } = await read(id);
      if (JSON.stringify(product) !== JSON.stringify(stale) || Date.now() > deadline) return product;
      await new Promise((r) => setTimeout(r, 20));
    }
  };
  /**
   * The stored counts, as the answer bound prices the product's tree: selections of 1, 2 and 3 levels, two
   * fields at each, so that a tree of any size but the empty one is over the bound of one field.
   */
  const pricedCounts = async (id: string) => {
    const found = async (selection: string) => {
      const res = await bounded.graphql(`query ($id: ID!) { product(id: $id) { steps { ${selection} } } }`, {
        token: reader,
        variables: { id },
      });
      if (!res.body.errors) return 0;
      const match = /found at least (\d+)/.exec(res.body.errors[0].message);
      expect(match, JSON.stringify(res.body)).not.toBeNull();
      return Number(match![1]) / 2;
    };
    const steps = await found('a: id b: id');
    const components = (await found('a: __typename components { a: id b: id }')) - steps;
    const customisations =
      (await found('a: __typename components { a: __typename customisations { a: id b: id } }')) - steps - components;
    return { steps, components, customisations };
  };
  const create = async () => {
    serial += 1;
    const { createProduct } = await mutate(t, admin, CREATE, { input: productInput(`MOVE-${serial}`, SHAPE) });
    return createProduct as Tree;
  };

  type Counts = ReturnType<typeof countsOf>;

  /** Both products' answers cached, `move` run by SQL, then every reader's view of both checked against `want`. */
  async function moveAndCheck(products: Tree[], move: () => Promise<unknown>, want: Counts[]) {
    const cached = [];
    for (const p of products) cached.push(await warm(p.id));
    const since = cached
      .map((p) => p.updatedAt)
      .sort()
      .at(-1)!;
    expect((await t.graphql(CHANGED, { token: reader, variables: { since } })).body.data.products.data).toEqual([]);

    await move();

    const after = [];
    for (const p of cached) after.push(await readChanged(p.id, p));
    expect(after.map(countsOf)).toEqual(want);
    const priced = [];
    for (const p of cached) priced.push(await pricedCounts(p.id));
    expect(priced).toEqual(want);
    for (const [i, p] of after.entries())
      expect(Date.parse(p.updatedAt), `product ${p.id}`).toBeGreaterThan(Date.parse(cached[i]!.updatedAt));
    const changed = (await t.graphql(CHANGED, { token: reader, variables: { since } })).body.data.products.data;
    expect(changed.map((p: { id: string }) => p.id).sort()).toEqual(cached.map((p) => p.id).sort());
    return after;
  }

  const run = (statement: ReturnType<typeof sql>) => statement.execute(t.database.handle.db);

  beforeAll(async () => {
    t = await startTestApp();
    bounded = await startTestApp({ database: t.database, env: { ...UNCACHED, GRAPHQL_MAX_ANSWER_FIELDS: '1' } });
    ({ admin, user: reader } = await adminAndUserTokens(t));
  });
  afterAll(async () => {
    await bounded?.close();
    await t?.close();
  });

  it('a step moved to another product: both trees, counts, updatedAt and cached answers, and saved configurations', async () => {
    const [a, b] = [await create(), await create()];
    const { saveConfiguration: saved } = await mutate(
      t,
      admin,
      'mutation ($id: ID!) { saveConfiguration(productId: $id, selections: []) { id changedSince } }',
      { id: a.id },
    );
    expect(saved.changedSince).toBe(false);
    const step = a.steps[0]!.id;
    const [a1, b1] = await moveAndCheck(
      [a, b],
      () => run(sql`UPDATE steps SET product_id = ${b.id}::bigint, "order" = 555 WHERE id = ${step}::bigint`),
      [
        { steps: 2, components: 4, customisations: 8 },
        { steps: 4, components: 8, customisations: 16 },
      ],
    );
    expect(a1!.steps.map((s) => s.id)).not.toContain(step);
    expect(b1!.steps.at(-1)!.id).toBe(step);
    const { configuration } = await mutate(t, reader, 'query ($id: ID!) { configuration(id: $id) { changedSince } }', {
      id: saved.id,
    });
    expect(configuration.changedSince).toBe(true);
  });

  it('a component moved to a step of another product', async () => {
    const [a, b] = [await create(), await create()];
    const component = a.steps[0]!.components[0]!.id;
    const [, b1] = await moveAndCheck(
      [a, b],
      () => run(sql`UPDATE components SET step_id = ${b.steps[0]!.id}::bigint WHERE id = ${component}::bigint`),
      [
        { steps: 3, components: 5, customisations: 10 },
        { steps: 3, components: 7, customisations: 14 },
      ],
    );
    expect(b1!.steps[0]!.components.map((c) => c.id)).toContain(component);
  });

  it('a customisation moved to a component of another product', async () => {
    const [a, b] = [await create(), await create()];
    const customisation = a.steps[0]!.components[0]!.customisations[0]!.id;
    const [, b1] = await moveAndCheck(
      [a, b],
      () =>
        run(sql`UPDATE customisations SET component_id = ${b.steps[0]!.components[0]!.id}::bigint
          WHERE id = ${customisation}::bigint`),
      [
        { steps: 3, components: 6, customisations: 11 },
        { steps: 3, components: 6, customisations: 13 },
      ],
    );
    expect(b1!.steps[0]!.components[0]!.customisations.map((x) => x.id)).toContain(customisation);
  });

  it('every step of one product moved to another in one statement', async () => {
    const [a, b] = [await create(), await create()];
    await moveAndCheck(
      [a, b],
      () =>
        run(
          sql`UPDATE steps SET product_id = ${b.id}::bigint, "order" = "order" + 100 WHERE product_id = ${a.id}::bigint`,
        ),
      [
        { steps: 0, components: 0, customisations: 0 },
        { steps: 6, components: 12, customisations: 24 },
      ],
    );
  });

  it('a component and a customisation moved between parents of the same product', async () => {
    const a = await create();
    const component = a.steps[0]!.components[0]!.id;
    const customisation = a.steps[1]!.components[1]!.customisations[1]!.id;
    const [a1] = await moveAndCheck(
      [a],
      () => run(sql`UPDATE components SET step_id = ${a.steps[2]!.id}::bigint WHERE id = ${component}::bigint`),
      [{ steps: 3, components: 6, customisations: 12 }],
    );
    expect(a1!.steps[2]!.components.map((c) => c.id)).toContain(component);
    const [a2] = await moveAndCheck(
      [a1!],
      () =>
        run(sql`UPDATE customisations SET component_id = ${a.steps[0]!.components[1]!.id}::bigint
          WHERE id = ${customisation}::bigint`),
      [{ steps: 3, components: 6, customisations: 12 }],
    );
    expect(a2!.steps[0]!.components[0]!.customisations.map((x) => x.id)).toContain(customisation);
  });
});

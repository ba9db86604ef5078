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

const UPSERT = `mutation ($input: UpsertProductInput!) { upsertProduct(input: $input) { ${TREE} } }`;
const upsert = async (input: unknown) => (await mutate(t, admin, UPSERT, { input })).upsertProduct;
const ids = (p: any) => ({
  steps: p.steps.map((s: any) => s.id),
  components: p.steps.flatMap((s: any) => s.components.map((c: any) => c.id)),
  customisations: p.steps.flatMap((s: any) => s.components.flatMap((c: any) => c.customisations.map((x: any) => x.id))),
});

describe('upsertProduct', () => {
  it('creates by sku, and the same input again changes nothing, updatedAt included', async () => {
    const input = productInput('UP-1', { steps: 3, components: 2, customisations: 2 });
    const created = await upsert(input);
    const snapshot = await catalogSnapshot(t);
    t.database.queries.reset();
    const again = await upsert(input);
    expect(again).toEqual(created);
    expect(await catalogSnapshot(t)).toEqual(snapshot);
    expect(t.database.queries.statements.filter((s) => /^\s*(insert|update|delete)/i.test(s))).toEqual([]);
  });

  it('keeps the ids of matched children: steps by order, components by position, customisations by name', async () => {
    const input = productInput('UP-2', { steps: 3, components: 2, customisations: 2 });
    const first = await upsert(input);
    const changed = structuredClone(input);
    changed.name = 'Renamed';
    changed.steps[0]!.name = 'First step, renamed';
    changed.steps[1]!.components[1]!.customisations[0]!.price = 99.99;
    changed.steps.splice(2, 1); // the third step goes, with its tree
    changed.steps[0]!.components.push({
      name: 'Added',
      position: 3,
      customisations: [{ name: 'New', type: 'text', price: 0 }],
    });
    const second = await upsert(changed);

    expect(second.name).toBe('Renamed');
    const before = ids(first);
    const after = ids(second);
    expect(after.steps).toEqual(before.steps.slice(0, 2));
    expect(after.components.slice(0, 2)).toEqual(before.components.slice(0, 2));
    expect(after.components[3]).toBe(before.components[2]);
    expect(after.customisations.slice(0, 4)).toEqual(before.customisations.slice(0, 4));
    expect(second.steps[0].components[2]).toMatchObject({ name: 'Added', customisations: [{ name: 'New', price: 0 }] });
    expect(second.steps[1].components[1].customisations[0]).toMatchObject({
      id: first.steps[1].components[1].customisations[0].id,
      price: 99.99,
    });
    expect(Date.parse(second.updatedAt)).toBeGreaterThan(Date.parse(first.updatedAt));
  });

  it('matches by id when given, even with a new order, and pairs repeated names in turn', async () => {
    const first = await upsert({
      name: 'Dupes',
      sku: 'UP-3',
      steps: [
        {
          name: 'a',
          order: 1,
          components: [
            {
              name: 'c',
              position: 1,
              customisations: ['Red', 'Red', 'Blue'].map((name) => ({ name, type: 'colour', price: 1 })),
            },
          ],
        },
        { name: 'b', order: 2 },
      ],
    });
    const [a, b] = first.steps;
    const [red1, red2, blue] = a.components[0].customisations;
    const second = await upsert({
      name: 'Dupes',
      sku: 'UP-3',
      steps: [
        { id: b.id, name: 'b', order: 1 },
        {
          id: a.id,
          name: 'a',
          order: 2,
          components: [
            {
              name: 'c',
              position: 1,
              customisations: [
                { name: 'Red', type: 'colour', price: 2 },
                { name: 'Blue', type: 'colour', price: 1 },
              ],
            },
          ],
        },
      ],
    });
    expect(second.steps.map((s: any) => [s.id, s.order])).toEqual([
      [b.id, 1],
      [a.id, 2],
    ]);
    expect(second.steps[1].components[0].customisations.map((x: any) => [x.id, x.price])).toEqual([
      [red1.id, 2],
      [blue.id, 1],
    ]);
    expect(second.steps[1].components[0].customisations.map((x: any) => x.id)).not.toContain(red2.id);
  });

  it('refuses ids that are not children of what they are matched under, writing nothing', async () => {
    const other = await upsert(productInput('UP-4', { steps: 1, components: 1, customisations: 1 }));
    const mine = await upsert(productInput('UP-5', { steps: 1, components: 1, customisations: 1 }));
    const before = await catalogSnapshot(t);
    const input = productInput('UP-5', { steps: 1, components: 1, customisations: 1 });
    (input.steps[0] as any).id = other.steps[0].id;
    (input.steps[0]!.components[0] as any).id = mine.steps[0].components[0].id;
    const res = await t.graphql(UPSERT, { token: admin, variables: { input } });
    expect(res.body.errors[0].extensions).toMatchObject({
      code: 'BAD_USER_INPUT',
      validation: {
        'input.steps.0.id': ['The selected id is invalid.'],
        'input.steps.0.components.0.id': ['The selected id is invalid.'],
      },
    });
    expect(await catalogSnapshot(t)).toEqual(before);
  });
});

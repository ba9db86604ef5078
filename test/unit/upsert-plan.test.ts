import { describe, expect, it } from 'vitest';
import { ValidationFailed } from '../../src/platform/errors.ts';
import { isEmptyPlan, planUpsert } from '../../src/modules/catalog/writes/upsert-plan.ts';
import type { StoredTree } from '../../src/modules/catalog/writes/tree-repository.ts';
import type { ProductValues } from '../../src/modules/catalog/writes/inputs.ts';

const stored: StoredTree = {
  steps: [
    { id: '1', product_id: '9', name: 'Size', order: 1, required: false },
    { id: '2', product_id: '9', name: 'Colour', order: 2, required: false },
  ],
  components: [
    { id: '10', step_id: '1', name: 'Top', position: 1, min_selections: 0, max_selections: 1 },
    { id: '11', step_id: '1', name: 'Legs', position: 1, min_selections: 0, max_selections: 1 },
    { id: '12', step_id: '2', name: 'Paint', position: 1, min_selections: 0, max_selections: 1 },
  ],
  customisations: [
    { id: '100', component_id: '12', name: 'Red', type: 'colour', price: '1.00', price_mode: 'ADD' },
    { id: '101', component_id: '12', name: 'Red', type: 'colour', price: '2.00', price_mode: 'ADD' },
    { id: '102', component_id: '12', name: 'Blue', type: 'colour', price: '3.00', price_mode: 'ADD' },
  ],
};

const same = (): ProductValues => ({
  name: 'P',
  sku: 'S',
  basePrice: '0.00',
  currency: 'EUR',
  rules: [],
  steps: [
    {
      name: 'Size',
      order: 1,
      components: [
        { name: 'Top', position: 1, customisations: [] },
        { name: 'Legs', position: 1, customisations: [] },
      ],
    },
    {
      name: 'Colour',
      order: 2,
      components: [
        {
          name: 'Paint',
          position: 1,
          customisations: [
            { name: 'Red', type: 'colour', price: '1.00' },
            { name: 'Red', type: 'colour', price: '2.00' },
            { name: 'Blue', type: 'colour', price: '3.00' },
          ],
        },
      ],
    },
  ],
});

describe('planUpsert', () => {
  it('plans nothing for the stored tree itself, repeated keys included', () => {
    expect(isEmptyPlan(planUpsert('9', stored, same()))).toBe(true);
  });

  it('pairs repeated keys in id order, updates only what differs, deletes what is left', () => {
    const values = same();
    values.steps[1]!.components[0]!.customisations = [{ name: 'Red', type: 'colour', price: '2.00' }];
    values.steps[0]!.components = [{ name: 'Legs', position: 1, customisations: [] }];
    const plan = planUpsert('9', stored, values);
    expect(plan.updates.customisations).toEqual([
      { id: '100', name: 'Red', type: 'colour', price: '2.00', priceMode: 'ADD' },
    ]);
    expect(plan.deletes.customisations).toEqual(['101', '102']);
    expect(plan.updates.components).toEqual([
      { id: '10', name: 'Legs', position: 1, minSelections: 0, maxSelections: 1 },
    ]);
    expect(plan.deletes.components).toEqual(['11']);
    expect(plan.deletes.steps).toEqual([]);
  });

  it('matches by id first, so a step can change its order', () => {
    const values = same();
    values.steps = [
      { ...values.steps[1]!, id: '2', order: 1 },
      { ...values.steps[0]!, id: '1', order: 2 },
    ];
    const plan = planUpsert('9', stored, values);
    expect(plan.updates.steps).toEqual([
      { id: '2', name: 'Colour', order: 1, required: false },
      { id: '1', name: 'Size', order: 2, required: false },
    ]);
    expect(plan.inserts.steps).toEqual([]);
  });

  it('creates unmatched inputs with their subtrees and refuses stored ids inside them', () => {
    const values = same();
    values.steps.push({
      name: 'New',
      order: 3,
      components: [{ id: '12', name: 'Stolen', position: 1, customisations: [] }],
    });
    expect(() => planUpsert('9', stored, values)).toThrow(ValidationFailed);
    try {
      planUpsert('9', stored, values);
    } catch (err) {
      expect((err as ValidationFailed).errors).toEqual({
        'input.steps.2.components.0.id': ['The selected id is invalid.'],
      });
    }
    values.steps[2]!.components[0]!.id = undefined;
    expect(planUpsert('9', stored, values).inserts.steps).toHaveLength(1);
  });
});

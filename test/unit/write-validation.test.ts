import { describe, expect, it } from 'vitest';
import { ValidationFailed } from '../../src/platform/errors.ts';
import { checkChanges, checkProduct, customisationRules } from '../../src/modules/catalog/writes/validation.ts';

const limits = {
  maxSteps: 2,
  maxComponentsPerStep: 2,
  maxCustomisationsPerComponent: 2,
  maxComponentsPerProduct: 3,
  maxCustomisationsPerProduct: 5,
};
const errorsOf = (run: () => unknown) => {
  try {
    run();
  } catch (err) {
    if (err instanceof ValidationFailed) return err.errors;
    throw err;
  }
  return {};
};

describe('catalogue input rules', () => {
  it('normalises what it accepts: trimmed names, prices as two-decimal text', () => {
    const values = checkProduct(
      {
        name: '  Desk ',
        sku: 'D-1',
        steps: [
          {
            name: ' s ',
            order: 0,
            components: [{ name: 'c', position: 0, customisations: [{ name: 'x', type: 't', price: 0.1 }] }],
          },
        ],
      },
      limits,
    );
    expect(values.name).toBe('Desk');
    expect(values.steps[0]!.name).toBe('s');
    expect(values.steps[0]!.components[0]!.customisations[0]!.price).toBe('0.10');
  });

  it('counts characters, not UTF-16 units: 200 emoji are a valid name', () => {
    expect(() => checkProduct({ name: '😀'.repeat(200), sku: 'E' }, limits)).not.toThrow();
    expect(errorsOf(() => checkProduct({ name: '😀'.repeat(201), sku: 'E' }, limits))).toEqual({
      'input.name': ['The name must not be greater than 200 characters.'],
    });
  });

  it('uses the configured limits', () => {
    const steps = [0, 1, 2].map((order) => ({ name: 's', order }));
    expect(errorsOf(() => checkProduct({ name: 'n', sku: 's', steps }, limits))).toEqual({
      'input.steps': ['The steps must not have more than 2 items.'],
    });
  });

  it('bounds the product in all: the totals are checked before the rows', () => {
    const component = (n: number) => ({
      name: 'c',
      position: 0,
      customisations: Array.from({ length: n }, () => ({ name: 'x', type: 't', price: 1 })),
    });
    const step = (order: number, ...sizes: number[]) => ({ name: 's', order, components: sizes.map(component) });
    expect(() => checkProduct({ name: 'n', sku: 's', steps: [step(0, 2, 2), step(1, 1)] }, limits)).not.toThrow();
    expect(
      errorsOf(() => checkProduct({ name: 'n', sku: 's', steps: [step(0, 2, 2), step(1, 1, 1)] }, limits)),
    ).toEqual({
      'input.steps': [
        'A product may have at most 3 components in all; this would make 4.',
        'A product may have at most 5 customisations in all; this would make 6.',
      ],
    });
  });

  it('checks only the fields an update sets; null keeps the stored value', () => {
    expect(checkChanges({ name: null, price: 12.5 }, customisationRules)).toEqual({ price: '12.50' });
    expect(errorsOf(() => checkChanges({ type: ' ', price: Number.NaN }, customisationRules))).toEqual({
      'input.type': ['The type field is required.'],
      'input.price': ['The price must be between 0 and 9999999999.99.'],
    });
  });

  it('gives the configuration fields their defaults: base 0, the instance currency, ADD, 0..1, not required', () => {
    const values = checkProduct(
      {
        name: 'n',
        sku: 's',
        steps: [
          {
            name: 's',
            order: 1,
            components: [{ name: 'c', position: 1, customisations: [{ name: 'x', type: 't', price: 1 }] }],
          },
        ],
      },
      limits,
      'input',
      'CHF',
    );
    expect(values).toMatchObject({ basePrice: '0.00', currency: 'CHF', rules: [] });
    expect(values.steps[0]).toMatchObject({ required: false });
    expect(values.steps[0]!.components[0]).toMatchObject({ minSelections: 0, maxSelections: 1 });
    expect(values.steps[0]!.components[0]!.customisations[0]).toMatchObject({ priceMode: 'ADD' });
  });

  it('checks rule ends against the input tree, trimmed, and EXCLUDES either way round as one rule', () => {
    const ref = (name: string) => ({ stepOrder: 1, componentPosition: 1, name });
    const product = (rules: unknown[], maxRulesPerProduct = 10) =>
      checkProduct(
        {
          name: 'n',
          sku: 's',
          steps: [
            {
              name: 's',
              order: 1,
              components: [
                {
                  name: 'c',
                  position: 1,
                  customisations: ['A', 'D', 'B', 'B'].map((name) => ({ name, type: 't', price: 0 })),
                },
              ],
            },
          ],
          rules: rules as never,
        },
        { ...limits, maxCustomisationsPerComponent: 10, maxCustomisationsPerProduct: 10, maxRulesPerProduct },
      );
    expect(product([{ kind: 'REQUIRES', customisation: ref(' A '), other: ref('D') }]).rules).toEqual([
      { kind: 'REQUIRES', customisation: ref('A'), other: ref('D'), message: null },
    ]);
    expect(
      errorsOf(() =>
        product([
          { kind: 'EXCLUDES', customisation: ref('A'), other: ref('D') },
          { kind: 'EXCLUDES', customisation: ref('D'), other: ref('A') },
          { kind: 'REQUIRES', customisation: ref('D'), other: ref('A') },
        ]),
      ),
    ).toEqual({ 'input.rules.1': ['The rule repeats input.rules.0.'] });
    expect(errorsOf(() => product([{ kind: 'REQUIRES', customisation: ref(' A '), other: ref('A') }]))).toEqual({
      'input.rules.0.other': ['A rule cannot join a customisation to itself.'],
    });
    expect(
      errorsOf(() =>
        product([
          { kind: 'EXCLUDES', customisation: ref('A'), other: ref('C') },
          { kind: 'EXCLUDES', customisation: ref('B'), other: ref('A') },
        ]),
      ),
    ).toEqual({
      'input.rules.0.other': ['The other names no customisation of the product.'],
      'input.rules.1.customisation': ['The customisation names 2 customisations of the product; it must name one.'],
    });
    expect(errorsOf(() => product([{ kind: 'REQUIRES', customisation: ref('A'), other: ref('C') }], 0))).toEqual({
      'input.rules': ['The rules must not have more than 0 items.'],
    });
  });
});

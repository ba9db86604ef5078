import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { evaluate, type ProductTree } from '../../src/modules/catalog/configure/engine.ts';
import { formatCents, MAX_AMOUNT_CENTS, parseCents, sumCents } from '../../src/modules/catalog/configure/money.ts';

// Money is whole cents from the repository to the answer. The references here are BigInt and string
// digits, never a float: a test that summed floats would share the bug it looks for.

/** The decimal text of a BigInt number of cents, by digits alone. */
const decimalOf = (cents: bigint) => {
  const digits = cents.toString().padStart(3, '0');
  return `${digits.slice(0, -2)}.${digits.slice(-2)}`;
};

/** One component, no limit on choices, every customisation an ADD at the given cents. */
const treeOf = (basePriceCents: number, prices: readonly number[], replacing: readonly number[] = []): ProductTree => ({
  basePriceCents,
  currency: 'EUR',
  rules: [],
  steps: [
    {
      id: '1',
      name: 'Step',
      order: 1,
      required: false,
      components: [
        {
          id: '1',
          name: 'Options',
          position: 1,
          minSelections: 0,
          maxSelections: null,
          customisations: [
            ...prices.map((priceCents, i) => ({
              id: String(i + 1),
              name: `Add ${i + 1}`,
              type: 'dropdown',
              priceCents,
              priceMode: 'ADD' as const,
            })),
            ...replacing.map((priceCents, i) => ({
              id: String(prices.length + i + 1),
              name: `Replace ${i + 1}`,
              type: 'dropdown',
              priceCents,
              priceMode: 'REPLACE_BASE' as const,
            })),
          ],
        },
      ],
    },
  ],
});
const everything = (tree: ProductTree) =>
  tree.steps[0]!.components[0]!.customisations.map((c) => ({ customisationId: c.id }));

describe('money in cents', () => {
  it('parses decimal strings to cents exactly and formats back with two decimals', () => {
    expect(parseCents('0')).toBe(0);
    expect(parseCents('0.29')).toBe(29);
    expect(parseCents('12.3')).toBe(1230);
    expect(parseCents('9999999999.99')).toBe(MAX_AMOUNT_CENTS);
    for (const bad of ['', '-1', '1.234', '1e3', '.5', '1.', ' 1', 'NaN', '12345678901', '0.1e1'])
      expect(() => parseCents(bad), bad).toThrow(RangeError);
    expect(formatCents(123450)).toBe('1234.50');
    expect(formatCents(5)).toBe('0.05');
    expect(formatCents(0)).toBe('0.00');
    expect(formatCents(MAX_AMOUNT_CENTS)).toBe('9999999999.99');
    expect(formatCents(Number.MAX_SAFE_INTEGER)).toBe('90071992547409.91');
  });

  it('round-trips every amount numeric(12,2) holds, by digits', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: MAX_AMOUNT_CENTS }), (cents) => {
        const text = formatCents(cents);
        expect(text).toBe(decimalOf(BigInt(cents)));
        expect(parseCents(text)).toBe(cents);
      }),
    );
  });

  it('0.10 + 0.20 is 0.30, and a thousand times 0.10 is 100.00 (floats say 0.30000000000000004 and 99.9999999999986)', () => {
    expect(0.1 + 0.2).not.toBe(0.3); // the trap, for the record
    expect(formatCents(sumCents(10, [20]))).toBe('0.30');
    expect(formatCents(sumCents(0, Array<number>(1000).fill(10)))).toBe('100.00');

    const r = evaluate(treeOf(10, [20]), [{ customisationId: '1' }]);
    expect(formatCents(r.price.totalCents)).toBe('0.30');
    const many = treeOf(0, Array<number>(1000).fill(10));
    expect(formatCents(evaluate(many, everything(many)).price.totalCents)).toBe('100.00');
  });

  it('is exact at the bounds: the largest base plus a thousand of the largest prices', () => {
    const tree = treeOf(MAX_AMOUNT_CENTS, Array<number>(999).fill(MAX_AMOUNT_CENTS));
    const r = evaluate(tree, everything(tree));
    expect(r.price.totalCents).toBe(999_999_999_999_000);
    expect(formatCents(r.price.totalCents)).toBe(decimalOf(BigInt(MAX_AMOUNT_CENTS) * 1000n));
    expect(formatCents(r.price.totalCents)).toBe('9999999999990.00');
    expect(r.price.lines.every((l) => formatCents(l.amountCents) === '9999999999.99')).toBe(true);
    // One REPLACE_BASE at the largest amount replaces the base exactly.
    const replaced = treeOf(1, [1], [MAX_AMOUNT_CENTS]);
    expect(formatCents(evaluate(replaced, everything(replaced)).price.totalCents)).toBe('10000000000.00');
  });

  it('any sum of up to 1000 amounts equals the BigInt sum, digit for digit', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: MAX_AMOUNT_CENTS }),
        fc.array(fc.integer({ min: 0, max: MAX_AMOUNT_CENTS }), { maxLength: 1000 }),
        (base, prices) => {
          const total = prices.reduce((sum, p) => sum + BigInt(p), BigInt(base));
          expect(formatCents(sumCents(base, prices))).toBe(decimalOf(total));
        },
      ),
      { numRuns: 200 },
    );
  });

  it('refuses a fraction of a cent and a total past 2^53 instead of answering a price that is almost right', () => {
    expect(() => sumCents(0, [10.5])).toThrow(RangeError);
    expect(() => sumCents(0.1, [])).toThrow(RangeError);
    expect(() => sumCents(Number.MAX_SAFE_INTEGER, [1])).toThrow(RangeError);
    expect(() => formatCents(0.1 * 3)).toThrow(RangeError);
    expect(() => formatCents(2 ** 53)).toThrow(RangeError);
    // A float that slipped into the tree is refused by the engine, not rounded.
    expect(() => evaluate(treeOf(0, [0.1]), [{ customisationId: '1' }])).toThrow(RangeError);
  });
});

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  evaluate,
  MAX_SELECTIONS,
  selectionInputErrors,
  VIOLATION_CODES,
  type ProductTree,
  type Selection,
  type TreeComponent,
  type TreeCustomisation,
  type Violation,
} from '../../src/modules/catalog/configure/engine.ts';
import { formatCents } from '../../src/modules/catalog/configure/money.ts';
import { serviceSchema } from '../../src/modules/index.ts';

const cust = (id: string, over: Partial<TreeCustomisation> = {}): TreeCustomisation => ({
  id,
  name: `C${id}`,
  type: 'dropdown',
  priceCents: 0,
  priceMode: 'ADD',
  ...over,
});
const comp = (
  id: string,
  position: number,
  customisations: TreeCustomisation[],
  over: Partial<TreeComponent> = {},
): TreeComponent => ({
  id,
  name: `K${id}`,
  position,
  minSelections: 0,
  maxSelections: 1,
  customisations,
  ...over,
});

// Step "Frame" (order 1): component 10 (max 1) with 101 (+10.50), 102 (+0.29);
// step "Engraving" (order 2, required): component 20 (no limit) with 201 (text, +5), 202 (REPLACE_BASE 80), 203 (REPLACE_BASE 90).
const TREE: ProductTree = {
  basePriceCents: 10000,
  currency: 'EUR',
  steps: [
    {
      id: '2',
      name: 'Engraving',
      order: 2,
      required: true,
      components: [
        comp(
          '20',
          1,
          [
            cust('201', { type: 'text', priceCents: 500 }),
            cust('202', { priceCents: 8000, priceMode: 'REPLACE_BASE' }),
            cust('203', { priceCents: 9000, priceMode: 'REPLACE_BASE' }),
          ],
          { maxSelections: null },
        ),
      ],
    },
    {
      id: '1',
      name: 'Frame',
      order: 1,
      required: false,
      components: [comp('10', 1, [cust('102', { priceCents: 29 }), cust('101', { priceCents: 1050 })])],
    },
  ],
  rules: [
    { id: '7', kind: 'REQUIRES', customisationId: '101', otherCustomisationId: '201', message: null },
    {
      id: '8',
      kind: 'EXCLUDES',
      customisationId: '102',
      otherCustomisationId: '203',
      message: 'Not with the gold frame.',
    },
  ],
};

const codes = (v: Violation[]) => v.map((x) => x.code);

describe('evaluate: examples', () => {
  it('an empty selection: the required step is missing; the price is the base', () => {
    const r = evaluate(TREE, []);
    expect(r.valid).toBe(false);
    expect(r.violations).toEqual([
      {
        code: 'STEP_REQUIRED',
        message: 'Step "Engraving" needs at least one choice.',
        stepId: '2',
        componentId: null,
        customisationId: null,
        otherCustomisationId: null,
      },
    ]);
    expect(r.price).toEqual({ currency: 'EUR', baseCents: 10000, lines: [], totalCents: 10000 });
  });

  it('a valid selection: lines in catalogue order, the total summed exactly', () => {
    const r = evaluate(TREE, [{ customisationId: '201', value: '  Anna  ' }, { customisationId: '101' }]);
    expect(r.violations).toEqual([]);
    expect(r.valid).toBe(true);
    expect(r.price.lines).toEqual([
      { customisationId: '101', name: 'C101', mode: 'ADD', amountCents: 1050 },
      { customisationId: '201', name: 'C201', mode: 'ADD', amountCents: 500 },
    ]);
    expect(r.price.totalCents).toBe(10000 + 1050 + 500);
    expect(r.choices.map((c) => c.value)).toEqual([null, '  Anna  ']);
  });

  it('one REPLACE_BASE replaces the base; two conflict, name the later, and leave the base', () => {
    const one = evaluate(TREE, [{ customisationId: '202' }, { customisationId: '102' }]);
    expect(one.valid).toBe(true);
    expect(one.price.totalCents).toBe(8000 + 29);
    const two = evaluate(TREE, [{ customisationId: '203' }, { customisationId: '202' }]);
    expect(two.violations).toEqual([
      expect.objectContaining({
        code: 'BASE_PRICE_CONFLICT',
        customisationId: '203',
        otherCustomisationId: '202',
        componentId: '20',
        stepId: '2',
      }),
    ]);
    expect(two.price.totalCents).toBe(10000);
    expect(two.price.lines.map((l) => l.customisationId)).toEqual(['202', '203']);
  });

  it('unknown ids come first, sorted by id string, once each', () => {
    const r = evaluate(TREE, [
      { customisationId: '9' },
      { customisationId: '10' },
      { customisationId: '9' },
      { customisationId: '201', value: 'x' },
    ]);
    expect(r.violations.map((v) => [v.code, v.customisationId])).toEqual([
      ['UNKNOWN_CUSTOMISATION', '10'],
      ['UNKNOWN_CUSTOMISATION', '9'],
    ]);
    expect(r.violations[0]!.message).toBe('Customisation "10" is not part of this product.');
  });

  it('a duplicate: one violation, counted once with its first value', () => {
    const r = evaluate(TREE, [
      { customisationId: '201', value: '' },
      { customisationId: '201', value: 'late' },
      { customisationId: '201' },
    ]);
    expect(r.violations.map((v) => [v.code, v.customisationId])).toEqual([
      ['DUPLICATE_SELECTION', '201'],
      ['VALUE_REQUIRED', '201'],
    ]);
    expect(r.price.lines).toHaveLength(1);
    expect(r.price.totalCents).toBe(10500);
  });

  it('component bounds: too many and too few, named by component', () => {
    const tree: ProductTree = {
      ...TREE,
      steps: [
        {
          ...TREE.steps[1]!,
          components: [
            comp('10', 1, TREE.steps[1]!.components[0]!.customisations as TreeCustomisation[], {
              minSelections: 1,
              maxSelections: 1,
            }),
          ],
        },
      ],
      rules: [],
    };
    expect(evaluate(tree, []).violations).toEqual([
      {
        code: 'TOO_FEW_SELECTIONS',
        message: 'Component "K10" needs at least 1 choice(s); 0 chosen.',
        stepId: '1',
        componentId: '10',
        customisationId: null,
        otherCustomisationId: null,
      },
    ]);
    expect(codes(evaluate(tree, [{ customisationId: '101' }, { customisationId: '102' }]).violations)).toEqual([
      'TOO_MANY_SELECTIONS',
    ]);
  });

  it('rules: REQUIRES and EXCLUDES name both ends, use the rule message when there is one', () => {
    const r = evaluate(TREE, [{ customisationId: '101' }, { customisationId: '203' }]);
    expect(r.violations).toEqual([
      {
        code: 'REQUIRES',
        message: '"C101" requires "C201".',
        stepId: '1',
        componentId: '10',
        customisationId: '101',
        otherCustomisationId: '201',
      },
    ]);
    const x = evaluate(TREE, [{ customisationId: '102' }, { customisationId: '203' }]);
    expect(x.violations).toEqual([
      {
        code: 'EXCLUDES',
        message: 'Not with the gold frame.',
        stepId: '1',
        componentId: '10',
        customisationId: '102',
        otherCustomisationId: '203',
      },
    ]);
  });

  it('values: text, typography and image need 1–1000 characters after trimming; others may carry up to 1000', () => {
    const tree: ProductTree = {
      basePriceCents: 0,
      currency: 'EUR',
      rules: [],
      steps: [
        {
          id: '1',
          name: 'S',
          order: 1,
          required: false,
          components: [
            comp(
              '1',
              1,
              [
                cust('1', { type: 'text' }),
                cust('2', { type: 'Typography' }),
                cust('3', { type: 'image' }),
                cust('4', { type: 'colour' }),
              ],
              { maxSelections: null },
            ),
          ],
        },
      ],
    };
    const check = (id: string, value: string | null | undefined) =>
      codes(evaluate(tree, [{ customisationId: id, value }]).violations);
    for (const id of ['1', '2', '3']) {
      expect(check(id, undefined)).toEqual(['VALUE_REQUIRED']);
      expect(check(id, '   ')).toEqual(['VALUE_REQUIRED']);
      expect(check(id, 'a')).toEqual([]);
      expect(check(id, ` ${'a'.repeat(1000)} `)).toEqual([]);
      expect(check(id, 'a'.repeat(1001))).toEqual(['VALUE_TOO_LONG']);
      // Characters, not UTF-16 units: 1000 emoji are 1000 characters.
      expect(check(id, '😀'.repeat(1000))).toEqual([]);
    }
    expect(check('4', null)).toEqual([]);
    expect(check('4', 'x'.repeat(1000))).toEqual([]);
    expect(check('4', 'x'.repeat(1001))).toEqual(['VALUE_TOO_LONG']);
  });

  it('orders violations by place in the catalogue, then code, then the other end, then rule id', () => {
    const tree: ProductTree = {
      basePriceCents: 0,
      currency: 'EUR',
      steps: [
        { id: '5', name: 'B', order: 2, required: true, components: [] },
        {
          id: '4',
          name: 'A',
          order: 1,
          required: false,
          components: [
            comp('41', 2, [cust('411', { type: 'text' })]),
            comp('40', 2, [cust('401'), cust('402'), cust('403')], { maxSelections: 1 }),
          ],
        },
      ],
      rules: [
        { id: '3', kind: 'REQUIRES', customisationId: '401', otherCustomisationId: '411', message: null },
        { id: '1', kind: 'EXCLUDES', customisationId: '401', otherCustomisationId: '403', message: null },
        { id: '2', kind: 'EXCLUDES', customisationId: '401', otherCustomisationId: '402', message: null },
      ],
    };
    const r = evaluate(tree, [
      { customisationId: '403' },
      { customisationId: 'x' },
      { customisationId: '402' },
      { customisationId: '401' },
      { customisationId: '401' },
    ]);
    expect(
      r.violations.map((v) => [v.code, v.stepId, v.componentId, v.customisationId, v.otherCustomisationId]),
    ).toEqual([
      ['UNKNOWN_CUSTOMISATION', null, null, 'x', null],
      ['TOO_MANY_SELECTIONS', '4', '40', null, null],
      ['DUPLICATE_SELECTION', '4', '40', '401', null],
      ['REQUIRES', '4', '40', '401', '411'],
      ['EXCLUDES', '4', '40', '401', '402'],
      ['EXCLUDES', '4', '40', '401', '403'],
      ['STEP_REQUIRED', '5', null, null, null],
    ]);
    // Component 41 (position 2, id 41) comes after component 40 (position 2, id 40) although listed first.
  });

  it('ignores a rule whose ends are not in the tree', () => {
    const tree = {
      ...TREE,
      rules: [
        { id: '1', kind: 'EXCLUDES' as const, customisationId: '101', otherCustomisationId: '999', message: null },
      ],
    };
    expect(evaluate(tree, [{ customisationId: '201', value: 'a' }]).valid).toBe(true);
  });
});

describe('violation codes', () => {
  // The type (generated from the SDL) keeps the list to the schema's codes; this keeps every one of them in it.
  it('are ordered for every ViolationCode the schema declares, and only those', () => {
    const type = serviceSchema().getType('ViolationCode');
    const declared = type && 'getValues' in type ? type.getValues().map((v) => v.name) : [];
    expect([...VIOLATION_CODES].sort()).toEqual(declared.sort());
  });
});

describe('selectionInputErrors', () => {
  it('refuses more than 1000 selections, and values that are not text', () => {
    const many = (n: number) => Array.from({ length: n }, (_, i) => ({ customisationId: String(i + 1) }));
    expect(MAX_SELECTIONS).toBe(1000);
    expect(selectionInputErrors(many(1000))).toBeNull();
    expect(selectionInputErrors(many(1001))).toEqual({
      selections: ['At most 1000 selections are allowed, got 1001.'],
    });
    expect(
      selectionInputErrors([
        { customisationId: '1', value: 'Grüße 😀' },
        { customisationId: '2', value: null },
      ]),
    ).toBeNull();
    for (const bad of ['a\u0000b', '\uD800', 'x\uDC00', '\uFFFE']) {
      expect(
        selectionInputErrors([{ customisationId: '1' }, { customisationId: '1', value: bad }]),
        JSON.stringify(bad),
      ).toEqual({
        'selections.1.value': ['The value must not contain NUL bytes, unpaired surrogates or non-characters.'],
      });
    }
  });
});

// ---- property-based: random trees, random selections ----

const TYPES = ['dropdown', 'colour', 'text', 'image', 'typography'];

const treeArb: fc.Arbitrary<ProductTree> = fc
  .record({
    base: fc.integer({ min: 0, max: 999_999_999_999 }),
    steps: fc.array(
      fc.record({
        required: fc.boolean(),
        components: fc.array(
          fc.record({
            position: fc.integer({ min: 0, max: 3 }),
            min: fc.integer({ min: 0, max: 2 }),
            extra: fc.option(fc.integer({ min: 0, max: 2 }), { nil: null }),
            customisations: fc.array(
              fc.record({
                type: fc.constantFrom(...TYPES),
                cents: fc.integer({ min: 0, max: 999_999_999_999 }),
                replace: fc.boolean(),
              }),
              { maxLength: 4 },
            ),
          }),
          { maxLength: 3 },
        ),
      }),
      { maxLength: 4 },
    ),
    ruleSeeds: fc.array(
      fc.record({ a: fc.nat(), b: fc.nat(), requires: fc.boolean(), message: fc.option(fc.string(), { nil: null }) }),
      { maxLength: 6 },
    ),
  })
  .map(({ base, steps, ruleSeeds }) => {
    let next = 1;
    const id = () => String(next++ * 7);
    const allIds: string[] = [];
    const tree: ProductTree = {
      basePriceCents: base,
      currency: 'EUR',
      steps: steps.map((s, i) => ({
        id: id(),
        name: `S${i}`,
        order: steps.length - i,
        required: s.required,
        components: s.components.map((c, j) => ({
          id: id(),
          name: `K${j}`,
          position: c.position,
          minSelections: c.min,
          maxSelections: c.extra === null ? null : c.min + c.extra,
          customisations: c.customisations.map((x) => {
            const cid = id();
            allIds.push(cid);
            return {
              id: cid,
              name: `N${cid}`,
              type: x.type,
              priceCents: x.cents,
              priceMode: x.replace ? 'REPLACE_BASE' : 'ADD',
            };
          }),
        })),
      })),
      rules: [],
    };
    const rules: ProductTree['rules'][number][] = [];
    const keys = new Set<string>();
    for (const seed of ruleSeeds) {
      if (allIds.length < 2) break;
      const a = allIds[seed.a % allIds.length]!;
      const b = allIds[seed.b % allIds.length]!;
      const kind = seed.requires ? 'REQUIRES' : 'EXCLUDES';
      const key = kind === 'EXCLUDES' ? [kind, ...[a, b].sort()].join() : [kind, a, b].join();
      if (a === b || keys.has(key)) continue;
      keys.add(key);
      rules.push({
        id: String(rules.length + 1),
        kind,
        customisationId: a,
        otherCustomisationId: b,
        message: seed.message,
      });
    }
    return { ...tree, rules };
  });

const idsOf = (tree: ProductTree) =>
  tree.steps.flatMap((s) => s.components.flatMap((c) => c.customisations.map((x) => x.id)));

const valueArb = fc.oneof(
  fc.constant(undefined),
  fc.constant(null),
  fc.constant('   '),
  fc.string({ maxLength: 5 }),
  fc.constant('v'.repeat(1001)),
);

/** A tree and a selection of its ids (some repeated, with the same value) plus unknown ones. */
const caseArb = treeArb.chain((tree) => {
  const ids = idsOf(tree);
  const known = ids.length ? fc.constantFrom(...ids) : fc.constant('1');
  return fc
    .record({
      picks: fc.array(
        fc.record({
          id: fc.oneof(
            { weight: 5, arbitrary: known },
            { weight: 1, arbitrary: fc.constantFrom('0', '1', '99999', 'abc') },
          ),
          value: valueArb,
        }),
        { maxLength: 12 },
      ),
    })
    .map(({ picks }) => {
      // One value per id, so that order cannot decide which value counts.
      const values = new Map<string, string | null | undefined>();
      const selections: Selection[] = picks.map((p) => {
        if (!values.has(p.id)) values.set(p.id, p.value);
        return { customisationId: p.id, value: values.get(p.id) };
      });
      return { tree, selections };
    });
});

/** What docs/configuring.md says must be reported, computed the plain way: code and the ids it names. */
function expectedViolations(tree: ProductTree, selections: readonly Selection[]): string[] {
  const where = new Map<string, { step: string; component: string; c: TreeCustomisation }>();
  for (const s of tree.steps)
    for (const k of s.components) for (const c of k.customisations) where.set(c.id, { step: s.id, component: k.id, c });
  const out: string[] = [];
  const counts = new Map<string, number>();
  const first = new Map<string, Selection>();
  for (const s of selections) {
    counts.set(s.customisationId, (counts.get(s.customisationId) ?? 0) + 1);
    if (!first.has(s.customisationId)) first.set(s.customisationId, s);
  }
  const chosen = new Set([...counts.keys()].filter((id) => where.has(id)));
  for (const id of counts.keys()) if (!where.has(id)) out.push(`UNKNOWN_CUSTOMISATION/${id}`);
  for (const id of chosen) if (counts.get(id)! > 1) out.push(`DUPLICATE_SELECTION/${id}`);
  for (const s of tree.steps)
    if (s.required && ![...chosen].some((id) => where.get(id)!.step === s.id)) out.push(`STEP_REQUIRED/${s.id}`);
  for (const s of tree.steps)
    for (const k of s.components) {
      const n = k.customisations.filter((c) => chosen.has(c.id)).length;
      if (n < k.minSelections) out.push(`TOO_FEW_SELECTIONS/${k.id}`);
      if (k.maxSelections !== null && n > k.maxSelections) out.push(`TOO_MANY_SELECTIONS/${k.id}`);
    }
  for (const r of tree.rules) {
    if (r.kind === 'REQUIRES' && chosen.has(r.customisationId) && !chosen.has(r.otherCustomisationId))
      out.push(`REQUIRES/${r.customisationId}/${r.otherCustomisationId}`);
    if (r.kind === 'EXCLUDES' && chosen.has(r.customisationId) && chosen.has(r.otherCustomisationId))
      out.push(`EXCLUDES/${r.customisationId}/${r.otherCustomisationId}`);
  }
  for (const id of chosen) {
    const value = (first.get(id)!.value ?? '').trim();
    const len = [...value].length;
    if (['text', 'typography', 'image'].includes(where.get(id)!.c.type) && len === 0) out.push(`VALUE_REQUIRED/${id}`);
    else if (len > 1000) out.push(`VALUE_TOO_LONG/${id}`);
  }
  const replacing = [...chosen].filter((id) => where.get(id)!.c.priceMode === 'REPLACE_BASE');
  if (replacing.length > 1) out.push(...Array.from({ length: replacing.length - 1 }, () => 'BASE_PRICE_CONFLICT'));
  return out.sort();
}

const described = (v: Violation) => {
  if (v.code === 'BASE_PRICE_CONFLICT') return v.code;
  if (v.code === 'STEP_REQUIRED') return `${v.code}/${v.stepId}`;
  if (v.code === 'TOO_FEW_SELECTIONS' || v.code === 'TOO_MANY_SELECTIONS') return `${v.code}/${v.componentId}`;
  if (v.code === 'REQUIRES' || v.code === 'EXCLUDES') return `${v.code}/${v.customisationId}/${v.otherCustomisationId}`;
  return `${v.code}/${v.customisationId}`;
};

describe('evaluate: properties', () => {
  it('reports exactly the violations docs/configuring.md defines; valid exactly when there are none', () => {
    fc.assert(
      fc.property(caseArb, ({ tree, selections }) => {
        const r = evaluate(tree, selections);
        expect(r.violations.map(described).sort()).toEqual(expectedViolations(tree, selections));
        expect(r.valid).toBe(r.violations.length === 0);
        for (const v of r.violations) expect(VIOLATION_CODES).toContain(v.code);
      }),
      { numRuns: 500 },
    );
  });

  it('the same selection in any order gives the same answer, every time', () => {
    fc.assert(
      fc.property(
        caseArb.chain((c) =>
          fc.shuffledSubarray(c.selections, { minLength: c.selections.length }).map((shuffled) => ({ ...c, shuffled })),
        ),
        ({ tree, selections, shuffled }) => {
          const a = evaluate(tree, selections);
          expect(evaluate(tree, shuffled)).toEqual(a);
          expect(evaluate(tree, selections)).toEqual(a);
          const reversedTree = { ...tree, steps: [...tree.steps].reverse(), rules: [...tree.rules].reverse() };
          expect(evaluate(reversedTree, selections)).toEqual(a);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('the total is the exact decimal sum: one REPLACE_BASE replaces the base, ADD lines add', () => {
    fc.assert(
      fc.property(caseArb, ({ tree, selections }) => {
        const r = evaluate(tree, selections);
        const known = new Map(
          tree.steps.flatMap((s) => s.components.flatMap((k) => k.customisations.map((c) => [c.id, c] as const))),
        );
        const distinct = [...new Set(selections.map((s) => s.customisationId))]
          .filter((id) => known.has(id))
          .map((id) => known.get(id)!);
        // BigInt: independent of the engine's number arithmetic.
        const replacing = distinct.filter((c) => c.priceMode === 'REPLACE_BASE');
        let total = BigInt(replacing.length === 1 ? replacing[0]!.priceCents : tree.basePriceCents);
        for (const c of distinct) if (c.priceMode === 'ADD') total += BigInt(c.priceCents);
        expect(BigInt(r.price.totalCents)).toBe(total);
        expect(r.price.lines).toHaveLength(distinct.length);
        expect(formatCents(r.price.totalCents)).toMatch(/^\d+\.\d{2}$/);
        expect(r.price.lines.map((l) => l.customisationId)).toEqual(r.choices.map((c) => c.customisationId));
      }),
      { numRuns: 500 },
    );
  });

  it('violations come in the fixed order: unknown ids first, then by catalogue place', () => {
    fc.assert(
      fc.property(caseArb, ({ tree, selections }) => {
        const { violations } = evaluate(tree, selections);
        const unknown = violations.filter((v) => v.code === 'UNKNOWN_CUSTOMISATION');
        expect(violations.slice(0, unknown.length)).toEqual(unknown);
        const ids = unknown.map((v) => v.customisationId!);
        expect(ids).toEqual([...ids].sort());
        // Every duplicated known id: one violation and one line.
        const counts = new Map<string, number>();
        for (const s of selections) counts.set(s.customisationId, (counts.get(s.customisationId) ?? 0) + 1);
        const dups = violations.filter((v) => v.code === 'DUPLICATE_SELECTION').map((v) => v.customisationId);
        expect(new Set(dups).size).toBe(dups.length);
      }),
    );
  });

  it('a selection built to satisfy every bound, rule and value is valid', () => {
    fc.assert(
      fc.property(
        treeArb,
        fc.string({ minLength: 1, maxLength: 20 }).filter((s) => s.trim() !== ''),
        (tree, text) => {
          // Plain trees: no rules, no REPLACE_BASE, each component's minimum chosen, required steps satisfiable.
          const plain: ProductTree = {
            ...tree,
            rules: [],
            steps: tree.steps.map((s) => ({
              ...s,
              required: s.required && s.components.some((k) => k.customisations.length > 0 && k.maxSelections !== 0),
              components: s.components.map((k) => ({
                ...k,
                minSelections: Math.min(k.minSelections, k.customisations.length),
                customisations: k.customisations.map((c) => ({ ...c, priceMode: 'ADD' as const })),
              })),
            })),
          };
          const selections: Selection[] = [];
          for (const s of plain.steps) {
            let picked = 0;
            for (const k of s.components) {
              const want = Math.max(
                k.minSelections,
                s.required && picked === 0 && k.customisations.length && k.maxSelections !== 0 ? 1 : 0,
              );
              for (const c of k.customisations.slice(0, want)) selections.push({ customisationId: c.id, value: text });
              picked += want;
            }
          }
          const r = evaluate(plain, selections);
          expect(r.violations).toEqual([]);
          expect(r.valid).toBe(true);
        },
      ),
    );
  });
});

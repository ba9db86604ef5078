import type { PriceMode, RuleKind, ViolationCode } from '../generated/enums.ts';
import { parseCents } from './money.ts';

// The configuration rules engine: a product tree and a customer's selection in, violations and a
// price out. Pure (no I/O, no clock), so the same input always gives the same answer, whatever
// order the selection lists its choices in. The rules it keeps are written down in
// docs/configuring.md, "The rules in full": change the two together.

// The schema's enums (codegen), so a value added to the SDL reaches the engine's types.
export type { PriceMode, RuleKind, ViolationCode };

export interface TreeCustomisation {
  id: string;
  name: string;
  type: string;
  /** A decimal string with at most two decimals, as numeric(12,2) holds it. */
  price: string;
  priceMode: PriceMode;
}
export interface TreeComponent {
  id: string;
  name: string;
  position: number;
  minSelections: number;
  /** null: no limit. */
  maxSelections: number | null;
  customisations: readonly TreeCustomisation[];
}
export interface TreeStep {
  id: string;
  name: string;
  order: number;
  required: boolean;
  components: readonly TreeComponent[];
}
export interface TreeRule {
  id: string;
  kind: RuleKind;
  customisationId: string;
  otherCustomisationId: string;
  message: string | null;
}
export interface ProductTree {
  basePrice: string;
  currency: string;
  steps: readonly TreeStep[];
  rules: readonly TreeRule[];
}

export interface Selection {
  customisationId: string;
  value?: string | null | undefined;
}

/** The codes' documented order (docs/configuring.md), which is also the tie-break between violations at one place. */
export const VIOLATION_CODES = [
  'UNKNOWN_CUSTOMISATION',
  'DUPLICATE_SELECTION',
  'STEP_REQUIRED',
  'TOO_FEW_SELECTIONS',
  'TOO_MANY_SELECTIONS',
  'REQUIRES',
  'EXCLUDES',
  'VALUE_REQUIRED',
  'VALUE_TOO_LONG',
  'BASE_PRICE_CONFLICT',
] as const satisfies readonly ViolationCode[];

export interface Violation {
  code: ViolationCode;
  message: string;
  stepId: string | null;
  componentId: string | null;
  customisationId: string | null;
  otherCustomisationId: string | null;
}

export interface PriceLine {
  customisationId: string;
  name: string;
  mode: PriceMode;
  amountCents: number;
}
export interface PriceBreakdown {
  currency: string;
  baseCents: number;
  lines: PriceLine[];
  totalCents: number;
}

/** A chosen customisation as it counts: known, once, with its first value. */
export interface Choice {
  customisationId: string;
  name: string;
  mode: PriceMode;
  amountCents: number;
  value: string | null;
}

export interface Evaluation {
  valid: boolean;
  violations: Violation[];
  price: PriceBreakdown;
  /** The known, de-duplicated choices in catalogue order: what a saved configuration keeps. */
  choices: Choice[];
}

/** More is refused as bad input before evaluation. */
export const MAX_SELECTIONS = 1000;
export const MAX_VALUE_LENGTH = 1000;
/** Kinds of customisation that are the customer's own input: without a value they mean nothing. */
export const VALUE_TYPES: ReadonlySet<string> = new Set(['text', 'typography', 'image']);

/** Ids are decimal strings: shorter is smaller, then by text. */
const compareIds = (a: string, b: string) => a.length - b.length || (a < b ? -1 : a > b ? 1 : 0);
const compareStrings = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** Characters as a reader counts them: code points, not UTF-16 units. */
const characters = (text: string) => {
  let n = 0;
  for (const _ of text) n++;
  return n;
};

interface Place {
  step: TreeStep;
  stepRank: number;
  component: TreeComponent;
  componentRank: number;
  customisation: TreeCustomisation;
  rank: number;
}

/** Catalogue order: steps by order, components by position then id, customisations by id. */
function catalogueOrder(tree: ProductTree) {
  const steps = [...tree.steps].sort((a, b) => a.order - b.order || compareIds(a.id, b.id));
  const places = new Map<string, Place>();
  const components: { step: TreeStep; stepRank: number; component: TreeComponent; componentRank: number }[] = [];
  let componentRank = 0;
  let rank = 0;
  steps.forEach((step, stepRank) => {
    const ordered = [...step.components].sort((a, b) => a.position - b.position || compareIds(a.id, b.id));
    for (const component of ordered) {
      components.push({ step, stepRank, component, componentRank });
      for (const customisation of [...component.customisations].sort((a, b) => compareIds(a.id, b.id))) {
        places.set(customisation.id, { step, stepRank, component, componentRank, customisation, rank: rank++ });
      }
      componentRank++;
    }
  });
  return { steps, components, places };
}

interface Sortable extends Violation {
  /** [step, component, customisation] ranks; -1 where the violation names no such place. */
  key: [number, number, number];
  otherRank: number;
  ruleId: string | null;
}

export function evaluate(tree: ProductTree, selections: readonly Selection[]): Evaluation {
  const { steps, components, places } = catalogueOrder(tree);
  const unknown = new Set<string>();
  const chosen = new Map<string, { place: Place; value: string | null; times: number }>();
  for (const selection of selections) {
    const place = places.get(selection.customisationId);
    if (!place) {
      unknown.add(selection.customisationId);
      continue;
    }
    const seen = chosen.get(selection.customisationId);
    if (seen) seen.times++;
    else chosen.set(selection.customisationId, { place, value: selection.value ?? null, times: 1 });
  }
  const picks = [...chosen.values()].sort((a, b) => a.place.rank - b.place.rank);

  const found: Sortable[] = [];
  const at = (
    code: ViolationCode,
    message: string,
    place: Partial<Place> & { step: TreeStep; stepRank: number },
    extra: Partial<Sortable> = {},
  ) =>
    found.push({
      code,
      message,
      stepId: place.step.id,
      componentId: place.component?.id ?? null,
      customisationId: place.customisation?.id ?? null,
      otherCustomisationId: null,
      key: [place.stepRank, place.componentRank ?? -1, place.rank ?? -1],
      otherRank: -1,
      ruleId: null,
      ...extra,
    });

  for (const { place, times } of picks) {
    if (times > 1)
      at('DUPLICATE_SELECTION', `"${place.customisation.name}" is chosen ${times} times; it counts once.`, place);
  }

  steps.forEach((step, stepRank) => {
    if (step.required && !picks.some((p) => p.place.step === step)) {
      at('STEP_REQUIRED', `Step "${step.name}" needs at least one choice.`, { step, stepRank });
    }
  });

  for (const { step, stepRank, component, componentRank } of components) {
    const n = picks.filter((p) => p.place.component === component).length;
    const place = { step, stepRank, component, componentRank };
    if (n < component.minSelections) {
      at(
        'TOO_FEW_SELECTIONS',
        `Component "${component.name}" needs at least ${component.minSelections} choice(s); ${n} chosen.`,
        place,
      );
    }
    if (component.maxSelections !== null && n > component.maxSelections) {
      at(
        'TOO_MANY_SELECTIONS',
        `Component "${component.name}" allows at most ${component.maxSelections} choice(s); ${n} chosen.`,
        place,
      );
    }
  }

  for (const rule of tree.rules) {
    const own = places.get(rule.customisationId);
    const other = places.get(rule.otherCustomisationId);
    // A rule whose ends are not both in this product's tree constrains nothing here.
    if (!own || !other) continue;
    const broken =
      rule.kind === 'REQUIRES'
        ? chosen.has(own.customisation.id) && !chosen.has(other.customisation.id)
        : chosen.has(own.customisation.id) && chosen.has(other.customisation.id);
    if (!broken) continue;
    const a = own.customisation.name;
    const b = other.customisation.name;
    const fallback = rule.kind === 'REQUIRES' ? `"${a}" requires "${b}".` : `"${a}" cannot be combined with "${b}".`;
    at(rule.kind, rule.message ?? fallback, own, {
      otherCustomisationId: other.customisation.id,
      otherRank: other.rank,
      ruleId: rule.id,
    });
  }

  for (const { place, value } of picks) {
    const name = place.customisation.name;
    const length = value === null ? 0 : characters(value.trim());
    if (VALUE_TYPES.has(place.customisation.type.toLowerCase()) && length === 0) {
      at('VALUE_REQUIRED', `"${name}" needs a value of 1 to ${MAX_VALUE_LENGTH} characters.`, place);
    } else if (length > MAX_VALUE_LENGTH) {
      at('VALUE_TOO_LONG', `The value of "${name}" is longer than ${MAX_VALUE_LENGTH} characters.`, place);
    }
  }

  const replacing = picks.filter((p) => p.place.customisation.priceMode === 'REPLACE_BASE');
  for (const { place } of replacing.slice(1)) {
    const first = replacing[0]!.place.customisation;
    at(
      'BASE_PRICE_CONFLICT',
      `"${place.customisation.name}" replaces the base price, as "${first.name}" already does: choose one of them.`,
      place,
      {
        otherCustomisationId: first.id,
        otherRank: replacing[0]!.place.rank,
      },
    );
  }

  const unknownViolations: Violation[] = [...unknown].sort(compareStrings).map((id) => ({
    code: 'UNKNOWN_CUSTOMISATION',
    message: `Customisation "${id}" is not part of this product.`,
    stepId: null,
    componentId: null,
    customisationId: id,
    otherCustomisationId: null,
  }));
  const codeRank = (code: ViolationCode) => VIOLATION_CODES.indexOf(code);
  found.sort(
    (x, y) =>
      x.key[0] - y.key[0] ||
      x.key[1] - y.key[1] ||
      x.key[2] - y.key[2] ||
      codeRank(x.code) - codeRank(y.code) ||
      x.otherRank - y.otherRank ||
      compareIds(x.ruleId ?? '', y.ruleId ?? ''),
  );
  const violations = [
    ...unknownViolations,
    ...found.map(({ key: _k, otherRank: _o, ruleId: _r, ...violation }) => violation),
  ];

  const choices: Choice[] = picks.map(({ place, value }) => ({
    customisationId: place.customisation.id,
    name: place.customisation.name,
    mode: place.customisation.priceMode,
    amountCents: parseCents(place.customisation.price),
    value,
  }));
  const baseCents = parseCents(tree.basePrice);
  const replacements = choices.filter((c) => c.mode === 'REPLACE_BASE');
  const start = replacements.length === 1 ? replacements[0]!.amountCents : baseCents;
  const totalCents = choices.filter((c) => c.mode === 'ADD').reduce((sum, c) => sum + c.amountCents, start);

  return {
    valid: violations.length === 0,
    violations,
    price: {
      currency: tree.currency,
      baseCents,
      lines: choices.map(({ customisationId, name, mode, amountCents }) => ({
        customisationId,
        name,
        mode,
        amountCents,
      })),
      totalCents,
    },
    choices,
  };
}

// NUL, an unpaired surrogate, or a Unicode non-character: text no customer means, and that jsonb refuses.
const UNSTORABLE =
  // eslint-disable-next-line no-control-regex -- NUL is the point of this pattern
  /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]|[\uFDD0-\uFDEF\uFFFE\uFFFF]/u;

/**
 * What makes a selection input unusable rather than merely invalid (bad input, not a violation):
 * more than MAX_SELECTIONS choices, or a value holding characters that are not text. Messages by
 * argument path, as the catalogue writes report them; null when there is nothing to say.
 */
export function selectionInputErrors(selections: readonly Selection[]): Record<string, string[]> | null {
  if (selections.length > MAX_SELECTIONS) {
    return { selections: [`At most ${MAX_SELECTIONS} selections are allowed, got ${selections.length}.`] };
  }
  const errors: Record<string, string[]> = {};
  selections.forEach((s, i) => {
    if (typeof s.value === 'string' && UNSTORABLE.test(s.value)) {
      errors[`selections.${i}.value`] = [
        'The value must not contain NUL bytes, unpaired surrogates or non-characters.',
      ];
    }
  });
  return Object.keys(errors).length ? errors : null;
}

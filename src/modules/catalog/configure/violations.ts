import type { ViolationCode } from '../generated/enums.ts';
import {
  compareIds,
  type CatalogueOrder,
  type Chosen,
  type ComponentPlace,
  type Place,
  type ReadSelection,
  type TreeRule,
  type TreeStep,
} from './tree.ts';

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

export const MAX_VALUE_LENGTH = 1000;
/** Kinds of customisation that are the customer's own input: without a value they mean nothing. */
export const VALUE_TYPES: ReadonlySet<string> = new Set(['text', 'typography', 'image']);

const compareStrings = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** Characters as a reader counts them: code points, not UTF-16 units. */
const characters = (text: string) => {
  let n = 0;
  for (const _ of text) n++;
  return n;
};

interface Sortable extends Violation {
  /** [step, component, customisation] ranks; -1 where the violation names no such place. */
  key: [number, number, number];
  otherRank: number;
  ruleId: string | null;
}

type At = Partial<Place> & { step: TreeStep; stepRank: number };
type Report = (code: ViolationCode, message: string, place: At, extra?: Partial<Sortable>) => void;

function duplicates(picks: readonly Chosen[], report: Report) {
  for (const { place, times } of picks) {
    if (times > 1)
      report('DUPLICATE_SELECTION', `"${place.customisation.name}" is chosen ${times} times; it counts once.`, place);
  }
}

function requiredSteps(steps: readonly TreeStep[], picks: readonly Chosen[], report: Report) {
  steps.forEach((step, stepRank) => {
    if (step.required && !picks.some((p) => p.place.step === step)) {
      report('STEP_REQUIRED', `Step "${step.name}" needs at least one choice.`, { step, stepRank });
    }
  });
}

function selectionCounts(components: readonly ComponentPlace[], picks: readonly Chosen[], report: Report) {
  for (const place of components) {
    const { component } = place;
    const n = picks.filter((p) => p.place.component === component).length;
    if (n < component.minSelections) {
      const message = `Component "${component.name}" needs at least ${component.minSelections} choice(s); ${n} chosen.`;
      report('TOO_FEW_SELECTIONS', message, place);
    }
    if (component.maxSelections !== null && n > component.maxSelections) {
      const message = `Component "${component.name}" allows at most ${component.maxSelections} choice(s); ${n} chosen.`;
      report('TOO_MANY_SELECTIONS', message, place);
    }
  }
}

function rules(
  list: readonly TreeRule[],
  places: ReadonlyMap<string, Place>,
  chosen: ReadonlyMap<string, Chosen>,
  report: Report,
) {
  for (const rule of list) {
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
    report(rule.kind, rule.message ?? fallback, own, {
      otherCustomisationId: other.customisation.id,
      otherRank: other.rank,
      ruleId: rule.id,
    });
  }
}

function values(picks: readonly Chosen[], report: Report) {
  for (const { place, value } of picks) {
    const name = place.customisation.name;
    const length = value === null ? 0 : characters(value.trim());
    if (VALUE_TYPES.has(place.customisation.type.toLowerCase()) && length === 0) {
      report('VALUE_REQUIRED', `"${name}" needs a value of 1 to ${MAX_VALUE_LENGTH} characters.`, place);
    } else if (length > MAX_VALUE_LENGTH) {
      report('VALUE_TOO_LONG', `The value of "${name}" is longer than ${MAX_VALUE_LENGTH} characters.`, place);
    }
  }
}

function basePriceConflicts(picks: readonly Chosen[], report: Report) {
  const replacing = picks.filter((p) => p.place.customisation.priceMode === 'REPLACE_BASE');
  const first = replacing[0]?.place;
  for (const { place } of replacing.slice(1)) {
    report(
      'BASE_PRICE_CONFLICT',
      `"${place.customisation.name}" replaces the base price, as "${first!.customisation.name}" already does: choose one of them.`,
      place,
      { otherCustomisationId: first!.customisation.id, otherRank: first!.rank },
    );
  }
}

const codeRank = (code: ViolationCode) => VIOLATION_CODES.indexOf(code);

/** Place in catalogue order, then code, then the other customisation, then rule. */
const byPlace = (x: Sortable, y: Sortable) =>
  x.key[0] - y.key[0] ||
  x.key[1] - y.key[1] ||
  x.key[2] - y.key[2] ||
  codeRank(x.code) - codeRank(y.code) ||
  x.otherRank - y.otherRank ||
  compareIds(x.ruleId ?? '', y.ruleId ?? '');

/** Every violation of the selection, in the documented order: unknown ids first (by id), then by place. */
export function findViolations(
  order: CatalogueOrder,
  treeRules: readonly TreeRule[],
  { unknown, chosen, picks }: ReadSelection,
): Violation[] {
  const found: Sortable[] = [];
  const report: Report = (code, message, place, extra = {}) =>
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
  duplicates(picks, report);
  requiredSteps(order.steps, picks, report);
  selectionCounts(order.components, picks, report);
  rules(treeRules, order.places, chosen, report);
  values(picks, report);
  basePriceConflicts(picks, report);

  const unknownViolations: Violation[] = [...unknown].sort(compareStrings).map((id) => ({
    code: 'UNKNOWN_CUSTOMISATION',
    message: `Customisation "${id}" is not part of this product.`,
    stepId: null,
    componentId: null,
    customisationId: id,
    otherCustomisationId: null,
  }));
  return [
    ...unknownViolations,
    ...found.sort(byPlace).map(({ key: _k, otherRank: _o, ruleId: _r, ...violation }) => violation),
  ];
}

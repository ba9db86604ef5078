import type { Checker } from './checker.ts';
import type { CustomisationRef, RuleInput, RuleValues, StepValues } from './inputs.ts';

// A whole product's rules, their ends named by CustomisationRef in the product's own checked tree.

const RULE_KINDS: readonly string[] = ['REQUIRES', 'EXCLUDES'];

const refKey = (ref: CustomisationRef) => JSON.stringify([ref.stepOrder, ref.componentPosition, ref.name]);

/** How many customisations of a tree each ref key names: a rule's end must name exactly one. */
export function countRefs(steps: readonly StepValues[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const s of steps)
    for (const co of s.components)
      for (const x of co.customisations) {
        const key = refKey({ stepOrder: s.order, componentPosition: co.position, name: x.name });
        counts.set(key, (counts.get(key) ?? 0) + 1);
      }
  return counts;
}

/** The key a rule is unique by: EXCLUDES is symmetric, REQUIRES directed. */
export function ruleKey(kind: string, a: string, b: string): string {
  return JSON.stringify(kind === 'EXCLUDES' && b < a ? [kind, b, a] : [kind, a, b]);
}

/** A whole product's rules, their ends named in the product's own (checked) tree. */
export function checkRules(
  c: Checker,
  list: readonly RuleInput[],
  steps: readonly StepValues[],
  path: string,
  max: number,
): RuleValues[] {
  if (!c.count(path, 'rules', list, max)) return [];
  const counts = countRefs(steps);
  const seen = new Map<string, number>();
  return list.map((input, i) => {
    const at = `${path}.${i}`;
    if (!RULE_KINDS.includes(input.kind)) c.fail(`${at}.kind`, 'The selected kind is invalid.');
    const end = (field: 'customisation' | 'other'): CustomisationRef => {
      const ref = input[field];
      const resolved = {
        stepOrder: c.slot(`${at}.${field}.stepOrder`, 'order', ref.stepOrder),
        componentPosition: c.slot(`${at}.${field}.componentPosition`, 'position', ref.componentPosition),
        name: ref.name.trim(),
      };
      const n = counts.get(refKey(resolved)) ?? 0;
      if (n === 0) c.fail(`${at}.${field}`, `The ${field} names no customisation of the product.`);
      else if (n > 1)
        c.fail(`${at}.${field}`, `The ${field} names ${n} customisations of the product; it must name one.`);
      return resolved;
    };
    const customisation = end('customisation');
    const other = end('other');
    const a = refKey(customisation);
    const b = refKey(other);
    if (a === b) c.fail(`${at}.other`, 'A rule cannot join a customisation to itself.');
    const key = ruleKey(input.kind, a, b);
    const first = seen.get(key);
    if (first !== undefined) c.fail(at, `The rule repeats ${path}.${first}.`);
    else seen.set(key, i);
    return { kind: input.kind, customisation, other, message: c.message(`${at}.message`, input.message) };
  });
}

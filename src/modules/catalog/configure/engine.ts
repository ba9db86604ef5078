import type { PriceMode, RuleKind, ViolationCode } from '../generated/enums.ts';
import { choicesOf, priceOf, type Choice, type PriceBreakdown } from './price.ts';
import { catalogueOrder, readSelection, type ProductTree, type Selection } from './tree.ts';
import { findViolations, type Violation } from './violations.ts';

// The configuration rules engine: a product tree and a customer's selection in, violations and a
// price out. Pure (no I/O, no clock), so the same input always gives the same answer, whatever
// order the selection lists its choices in. The rules it keeps are written down in
// docs/configuring.md, "The rules in full": change the two together. Its parts: tree (the input
// and catalogue order), violations (the rules), price (in cents), selection-input (bad input).

// The schema's enums (codegen), so a value added to the SDL reaches the engine's types.
export type { PriceMode, RuleKind, ViolationCode };
export type { ProductTree, Selection, TreeComponent, TreeCustomisation, TreeRule, TreeStep } from './tree.ts';
export { VIOLATION_CODES, MAX_VALUE_LENGTH, VALUE_TYPES, type Violation } from './violations.ts';
export type { Choice, PriceBreakdown, PriceLine } from './price.ts';
export { MAX_SELECTIONS, selectionInputErrors } from './selection-input.ts';

export interface Evaluation {
  valid: boolean;
  violations: Violation[];
  price: PriceBreakdown;
  /** The known, de-duplicated choices in catalogue order: what a saved configuration keeps. */
  choices: Choice[];
}

export function evaluate(tree: ProductTree, selections: readonly Selection[]): Evaluation {
  const order = catalogueOrder(tree);
  const read = readSelection(order.places, selections);
  const violations = findViolations(order, tree.rules, read);
  const choices = choicesOf(read.picks);
  return { valid: violations.length === 0, violations, price: priceOf(tree, choices), choices };
}

import { Kind, type FieldNode, type FragmentDefinitionNode, type SelectionSetNode } from 'graphql';
import { AnswerTooLarge } from '../../platform/errors.ts';

// The cost limit prices nested lists once: their length is the data's. This prices them at their real length,
// per request, as the product rows (which carry their tree's counts) reach the resolvers, and refuses the
// answer before the rows of a tree over the bound are read. A field is 1; a list repeats its selection.

/** The list field of each level of a product's tree, from the steps down. */
const CHILD_LIST = ['components', 'customisations'] as const;

type Fragments = Record<string, FragmentDefinitionNode>;

/** Fields selected per item at each level below the field (steps, components, customisations): the cost is their dot product with the counts. */
const weightsCache = new WeakMap<FieldNode, number[]>();

function addWeights(
  set: SelectionSetNode | undefined,
  level: number,
  fragments: Fragments,
  weights: number[],
  seen: Set<string>,
): void {
  if (!set || level >= weights.length) return;
  for (const selection of set.selections) {
    if (selection.kind === Kind.FIELD) {
      weights[level]! += 1;
      if (selection.name.value === CHILD_LIST[level])
        addWeights(selection.selectionSet, level + 1, fragments, weights, seen);
    } else if (selection.kind === Kind.INLINE_FRAGMENT) {
      addWeights(selection.selectionSet, level, fragments, weights, seen);
    } else if (!seen.has(selection.name.value)) {
      // Validation refuses cycles; `seen` only keeps a hostile document linear.
      seen.add(selection.name.value);
      addWeights(fragments[selection.name.value]?.selectionSet, level, fragments, weights, seen);
      seen.delete(selection.name.value);
    }
  }
}

/** Per-item field counts under a list field of `depth` levels (3 for Product.steps, 1 for Component.customisations). */
export function selectionWeights(nodes: readonly FieldNode[], fragments: Fragments, depth: number): number[] {
  const cached = nodes.length === 1 ? weightsCache.get(nodes[0]!) : undefined;
  if (cached && cached.length === depth) return cached;
  const weights = new Array<number>(depth).fill(0);
  const offset = 3 - depth;
  for (const node of nodes) {
    const levelWeights = new Array<number>(3).fill(0);
    addWeights(node.selectionSet, offset, fragments, levelWeights, new Set());
    levelWeights.slice(offset).forEach((w, i) => (weights[i]! += w));
  }
  if (nodes.length === 1) weightsCache.set(nodes[0]!, weights);
  return weights;
}

/** Fields per item of a list whose items hold only single objects below (a rule and its two customisations): every field counts. */
export function fieldsPerItem(nodes: readonly FieldNode[], fragments: Fragments): number {
  let total = 0;
  const count = (set: SelectionSetNode | undefined, seen: Set<string>): void => {
    for (const selection of set?.selections ?? []) {
      if (selection.kind === Kind.FIELD) {
        total += 1;
        count(selection.selectionSet, seen);
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        count(selection.selectionSet, seen);
      } else if (!seen.has(selection.name.value)) {
        seen.add(selection.name.value);
        count(fragments[selection.name.value]?.selectionSet, seen);
        seen.delete(selection.name.value);
      }
    }
  };
  for (const node of nodes) count(node.selectionSet, new Set());
  return total;
}

/** One request's spending: each list field's answer is charged before its rows are read. */
export class AnswerBudget {
  private spent = 0;
  /** Rows already charged for with their product: reading under them again costs nothing more. */
  private readonly paid = new WeakSet<object>();

  constructor(private readonly max: number) {}

  charge(fields: number): void {
    this.spent += fields;
    if (this.spent > this.max) throw new AnswerTooLarge(this.max, this.spent);
  }

  isPaid(row: object): boolean {
    return this.paid.has(row);
  }

  markPaid(rows: readonly object[]): void {
    for (const row of rows) this.paid.add(row);
  }
}

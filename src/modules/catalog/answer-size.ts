import { Kind, type FieldNode, type FragmentDefinitionNode, type SelectionSetNode } from 'graphql';
import { AnswerTooLarge } from '../../platform/errors.ts';
import { answerBytes } from './answer-weight.ts';

// The cost limit prices nested lists once: their length is the data's. This prices them at their real length,
// per request, as the product rows (which carry their tree's counts) reach the resolvers, and refuses the
// answer before the rows of a tree over the bound are read. A field is 1; a list repeats its selection.
// Fields say nothing of a field's size (an echoed 1,000-character id is one field): the same budget also holds
// the answer's bytes, weighed by answer-weight.ts as each resolver hands its value over.

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

export interface AnswerLimits {
  /** GRAPHQL_MAX_ANSWER_FIELDS: fields in the product trees' lists, priced from their counts before they are read. */
  fields: number;
  /** GRAPHQL_MAX_ANSWER_BYTES: bytes of JSON, weighed as each resolver hands its value over (answer-weight.ts). */
  bytes: number;
}

/**
 * One request's spending: each list field's answer is charged before its rows are read (fields), and every value a
 * resolver hands over is weighed before GraphQL builds it (bytes), so what is built never outgrows what was charged.
 */
export class AnswerBudget {
  private fields = 0;
  private bytes = 0;
  /** Rows already charged for with their product: reading under them again costs nothing more. */
  private readonly paid = new WeakSet<object>();

  constructor(private readonly limits: AnswerLimits) {}

  chargeFields(fields: number): void {
    this.fields += fields;
    this.assertRoom();
  }

  chargeBytes(bytes: number): void {
    this.bytes += bytes;
    this.assertRoom();
  }

  /** Charges what `value` will weigh as the answer to `info`'s field, and hands it back. */
  charge<T>(value: T, info: Parameters<typeof answerBytes>[1]): T {
    // Once over, nothing more is weighed: the answer is refused whatever this adds.
    this.assertRoom();
    this.chargeBytes(answerBytes(value, info));
    return value;
  }

  /** Throws once the answer is over either bound: work whose result would only be refused is not done. */
  assertRoom(): void {
    if (this.fields > this.limits.fields) throw new AnswerTooLarge(this.limits.fields, this.fields, 'fields');
    if (this.bytes > this.limits.bytes) throw new AnswerTooLarge(this.limits.bytes, this.bytes, 'bytes');
  }

  isPaid(row: object): boolean {
    return this.paid.has(row);
  }

  markPaid(rows: readonly object[]): void {
    for (const row of rows) this.paid.add(row);
  }
}

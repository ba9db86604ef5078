import type { NewRows, RowChanges } from './repository.ts';
import type { NewRule, StoredRule } from './rule-repository.ts';
import type { StoredTree } from './tree-repository.ts';
import { Checker } from './checker.ts';
import type {
  ComponentValues,
  CustomisationValues,
  CustomisationRef,
  ProductValues,
  RuleValues,
  StepValues,
} from './inputs.ts';
import { ruleKey } from './rule-validation.ts';

// upsertProduct's matching rule: a stored child is kept (with its id) when the input names its id, or
// else when it has the input's key under the same parent: steps by `order`, components by `position`,
// customisations by `name`. Keys need not be unique: the k-th input of a key takes the k-th stored child
// of that key, in id order. Whatever stored child is left unmatched is deleted.

export interface UpsertPlan {
  deletes: { steps: string[]; components: string[]; customisations: string[] };
  updates: Required<RowChanges>;
  inserts: Required<NewRows>;
}

export const isEmptyPlan = (plan: UpsertPlan) =>
  [...Object.values(plan.deletes), ...Object.values(plan.updates), ...Object.values(plan.inserts)].every(
    (list) => list.length === 0,
  );

function groupBy<T>(rows: readonly T[], key: (row: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const row of rows) {
    const list = groups.get(key(row));
    if (list) list.push(row);
    else groups.set(key(row), [row]);
  }
  return groups;
}

/** Pairs inputs with stored rows: by id first, then by key in turn. Unknown ids are reported. */
function pair<I extends { id?: string }, S extends { id: string }>(
  c: Checker,
  inputs: readonly I[],
  stored: readonly S[],
  inputKey: (input: I) => unknown,
  storedKey: (row: S) => unknown,
  path: string,
): { matched: (S | undefined)[]; unmatched: S[] } {
  const byId = new Map(stored.map((s) => [s.id, s]));
  const used = new Set<string>();
  const matched = inputs.map((input, i) => {
    if (input.id === undefined) return undefined;
    const row = byId.get(input.id);
    if (!row) c.fail(`${path}.${i}.id`, 'The selected id is invalid.');
    else used.add(row.id);
    return row;
  });
  const free = groupBy(
    stored.filter((s) => !used.has(s.id)),
    (s) => String(storedKey(s)),
  );
  inputs.forEach((input, i) => {
    if (input.id !== undefined) return;
    const row = free.get(String(inputKey(input)))?.shift();
    if (row) {
      matched[i] = row;
      used.add(row.id);
    }
  });
  return { matched, unmatched: stored.filter((s) => !used.has(s.id)) };
}

/** A new subtree cannot keep stored ids: its parent was not matched. */
function rejectIds(c: Checker, step: StepValues | ComponentValues | CustomisationValues, path: string): void {
  if (step.id !== undefined) c.fail(`${path}.id`, 'The selected id is invalid.');
  if ('components' in step) step.components.forEach((x, i) => rejectIds(c, x, `${path}.components.${i}`));
  if ('customisations' in step) step.customisations.forEach((x, i) => rejectIds(c, x, `${path}.customisations.${i}`));
}

/** What planning one upsert shares: its errors, the plan so far, and the stored children by parent. */
interface Planning {
  c: Checker;
  plan: UpsertPlan;
  componentsOf: Map<string, StoredTree['components']>;
  customisationsOf: Map<string, StoredTree['customisations']>;
}

function planCustomisations(p: Planning, componentId: string, inputs: readonly CustomisationValues[], at: string) {
  const { c, plan } = p;
  const { matched, unmatched } = pair(
    c,
    inputs,
    p.customisationsOf.get(componentId) ?? [],
    (x) => x.name,
    (x) => x.name,
    at,
  );
  plan.deletes.customisations.push(...unmatched.map((x) => x.id));
  inputs.forEach((input, i) => {
    const row = matched[i];
    if (!row) return plan.inserts.customisations.push({ componentId, customisation: input });
    const priceMode = input.priceMode ?? 'ADD';
    if (
      row.name !== input.name ||
      row.type !== input.type ||
      row.price !== input.price ||
      row.price_mode !== priceMode
    ) {
      plan.updates.customisations.push({
        id: row.id,
        name: input.name,
        type: input.type,
        price: input.price,
        priceMode,
      });
    }
  });
}

function planComponents(p: Planning, stepId: string, inputs: readonly ComponentValues[], at: string) {
  const { c, plan } = p;
  const { matched, unmatched } = pair(
    c,
    inputs,
    p.componentsOf.get(stepId) ?? [],
    (x) => x.position,
    (x) => x.position,
    at,
  );
  plan.deletes.components.push(...unmatched.map((x) => x.id));
  inputs.forEach((input, i) => {
    const row = matched[i];
    if (!row) {
      input.customisations.forEach((x, j) => rejectIds(c, x, `${at}.${i}.customisations.${j}`));
      return plan.inserts.components.push({ stepId, component: input });
    }
    const minSelections = input.minSelections ?? 0;
    const maxSelections = input.maxSelections === undefined ? 1 : input.maxSelections;
    if (
      row.name !== input.name ||
      row.position !== input.position ||
      row.min_selections !== minSelections ||
      row.max_selections !== maxSelections
    ) {
      plan.updates.components.push({
        id: row.id,
        name: input.name,
        position: input.position,
        minSelections,
        maxSelections,
      });
    }
    planCustomisations(p, row.id, input.customisations, `${at}.${i}.customisations`);
  });
}

export function planUpsert(productId: string, stored: StoredTree, values: ProductValues, path = 'input'): UpsertPlan {
  const c = new Checker();
  const plan: UpsertPlan = {
    deletes: { steps: [], components: [], customisations: [] },
    updates: { steps: [], components: [], customisations: [] },
    inserts: { steps: [], components: [], customisations: [] },
  };
  const p: Planning = {
    c,
    plan,
    componentsOf: groupBy(stored.components, (x) => x.step_id),
    customisationsOf: groupBy(stored.customisations, (x) => x.component_id),
  };

  const steps = pair(
    c,
    values.steps,
    stored.steps,
    (s) => s.order,
    (s) => s.order,
    `${path}.steps`,
  );
  plan.deletes.steps.push(...steps.unmatched.map((s) => s.id));
  values.steps.forEach((input, i) => {
    const row = steps.matched[i];
    if (!row) {
      input.components.forEach((x, j) => rejectIds(c, x, `${path}.steps.${i}.components.${j}`));
      return plan.inserts.steps.push({ productId, step: input });
    }
    const required = input.required ?? false;
    if (row.name !== input.name || row.order !== input.order || row.required !== required)
      plan.updates.steps.push({ id: row.id, name: input.name, order: input.order, required });
    planComponents(p, row.id, input.components, `${path}.steps.${i}.components`);
  });
  c.done();
  return plan;
}

// Rules: ends named by CustomisationRef are resolved against the stored tree once it equals the input
// (checkProduct made sure each names exactly one customisation of the input). Stored rules are kept,
// with their ids, when their (kind, customisation, other) is in the input: EXCLUDES either way round.

export interface RulePlan {
  deletes: string[];
  updates: { id: string; customisationId: string; otherCustomisationId: string; message: string | null }[];
  inserts: NewRule[];
}

export const isEmptyRulePlan = (plan: RulePlan) =>
  plan.deletes.length === 0 && plan.updates.length === 0 && plan.inserts.length === 0;

/** The customisation id each ref key of one product's stored tree names (only keys naming one). */
export function refIndex(tree: StoredTree, productId: string): Map<string, string> {
  const stepOrder = new Map(tree.steps.filter((s) => s.product_id === productId).map((s) => [s.id, s.order]));
  const component = new Map(
    tree.components.filter((c) => stepOrder.has(c.step_id)).map((c) => [c.id, [stepOrder.get(c.step_id)!, c.position]]),
  );
  const ids = new Map<string, string | null>();
  for (const x of tree.customisations) {
    const at = component.get(x.component_id);
    if (!at) continue;
    const key = JSON.stringify([at[0], at[1], x.name]);
    ids.set(key, ids.has(key) ? null : x.id);
  }
  return new Map([...ids].filter((e): e is [string, string] => e[1] !== null));
}

/** The stored tree's refs, the other way: what export writes for a rule's ends. */
export function refsById(tree: StoredTree): Map<string, CustomisationRef> {
  const stepOrder = new Map(tree.steps.map((s) => [s.id, s.order]));
  const component = new Map(tree.components.map((c) => [c.id, [stepOrder.get(c.step_id)!, c.position] as const]));
  return new Map(
    tree.customisations.map((x) => {
      const [stepOrder, componentPosition] = component.get(x.component_id)!;
      return [x.id, { stepOrder, componentPosition, name: x.name }];
    }),
  );
}

export function planRules(
  productId: string,
  tree: StoredTree,
  stored: readonly StoredRule[],
  rules: readonly RuleValues[],
): RulePlan {
  const index = refIndex(tree, productId);
  const resolve = (ref: CustomisationRef) => {
    const id = index.get(JSON.stringify([ref.stepOrder, ref.componentPosition, ref.name]));
    if (id === undefined) throw new Error('a rule end names no single customisation of the written tree');
    return id;
  };
  const byKey = new Map(stored.map((r) => [ruleKey(r.kind, r.customisation_id, r.other_customisation_id), r] as const));
  const kept = new Set<string>();
  const plan: RulePlan = { deletes: [], updates: [], inserts: [] };
  for (const rule of rules) {
    const a = resolve(rule.customisation);
    const b = resolve(rule.other);
    const row = byKey.get(ruleKey(rule.kind, a, b));
    if (!row) {
      plan.inserts.push({
        productId,
        kind: rule.kind,
        customisationId: a,
        otherCustomisationId: b,
        message: rule.message,
      });
      continue;
    }
    kept.add(row.id);
    if (row.customisation_id !== a || row.other_customisation_id !== b || row.message !== rule.message) {
      plan.updates.push({ id: row.id, customisationId: a, otherCustomisationId: b, message: rule.message });
    }
  }
  plan.deletes = stored.filter((r) => !kept.has(r.id)).map((r) => r.id);
  return plan;
}

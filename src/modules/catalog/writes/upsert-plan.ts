import type { NewRows, RowChanges, StoredTree } from './repository.ts';
import {
  Checker,
  type ComponentValues,
  type CustomisationValues,
  type ProductValues,
  type StepValues,
} from './validation.ts';

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

export function planUpsert(productId: string, stored: StoredTree, values: ProductValues, path = 'input'): UpsertPlan {
  const c = new Checker();
  const plan: UpsertPlan = {
    deletes: { steps: [], components: [], customisations: [] },
    updates: { steps: [], components: [], customisations: [] },
    inserts: { steps: [], components: [], customisations: [] },
  };
  const componentsOf = groupBy(stored.components, (x) => x.step_id);
  const customisationsOf = groupBy(stored.customisations, (x) => x.component_id);

  function customisations(componentId: string, inputs: readonly CustomisationValues[], at: string) {
    const { matched, unmatched } = pair(
      c,
      inputs,
      customisationsOf.get(componentId) ?? [],
      (x) => x.name,
      (x) => x.name,
      at,
    );
    plan.deletes.customisations.push(...unmatched.map((x) => x.id));
    inputs.forEach((input, i) => {
      const row = matched[i];
      if (!row) return plan.inserts.customisations.push({ componentId, customisation: input });
      if (row.name !== input.name || row.type !== input.type || row.price !== input.price) {
        plan.updates.customisations.push({ id: row.id, name: input.name, type: input.type, price: input.price });
      }
    });
  }

  function components(stepId: string, inputs: readonly ComponentValues[], at: string) {
    const { matched, unmatched } = pair(
      c,
      inputs,
      componentsOf.get(stepId) ?? [],
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
      if (row.name !== input.name || row.position !== input.position) {
        plan.updates.components.push({ id: row.id, name: input.name, position: input.position });
      }
      customisations(row.id, input.customisations, `${at}.${i}.customisations`);
    });
  }

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
    if (row.name !== input.name || row.order !== input.order)
      plan.updates.steps.push({ id: row.id, name: input.name, order: input.order });
    components(row.id, input.components, `${path}.steps.${i}.components`);
  });
  c.done();
  return plan;
}

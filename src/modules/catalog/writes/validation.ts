import { Checker } from './checker.ts';
import {
  maxRulesOf,
  type ComponentInput,
  type ComponentValues,
  type CustomisationInput,
  type CustomisationValues,
  type ProductInput,
  type ProductValues,
  type StepInput,
  type StepValues,
  type TreeSize,
  type WriteLimits,
} from './inputs.ts';
import { checkRules } from './rule-validation.ts';

// The rules of catalogue input: a subtree, a whole product, an update's fields. Every error is collected
// by its argument path before anything touches the database (checker.ts).

export function checkCustomisation(c: Checker, input: CustomisationInput, path: string): CustomisationValues {
  const id = c.id(`${path}.id`, input.id);
  return {
    ...(id ? { id } : {}),
    name: c.name(`${path}.name`, input.name),
    type: c.type(`${path}.type`, input.type),
    price: c.price(`${path}.price`, input.price),
    priceMode: c.priceMode(`${path}.priceMode`, input.priceMode ?? 'ADD'),
  };
}

export function checkComponent(c: Checker, input: ComponentInput, path: string, limits: WriteLimits): ComponentValues {
  const id = c.id(`${path}.id`, input.id);
  const list = input.customisations ?? [];
  const fits = c.count(`${path}.customisations`, 'customisations', list, limits.maxCustomisationsPerComponent);
  const customisations = fits ? list.map((x, i) => checkCustomisation(c, x, `${path}.customisations.${i}`)) : [];
  c.distinct(
    customisations,
    (x) => x.id,
    (i) => `${path}.customisations.${i}.id`,
    'id',
  );
  const minSelections = c.bound(`${path}.minSelections`, 'min selections', input.minSelections ?? 0);
  // Left out is the default of one; an explicit null is no limit.
  const max = input.maxSelections === undefined ? 1 : input.maxSelections;
  const maxSelections = max === null ? null : c.bound(`${path}.maxSelections`, 'max selections', max);
  c.selections(`${path}.minSelections`, minSelections, maxSelections);
  return {
    ...(id ? { id } : {}),
    name: c.name(`${path}.name`, input.name),
    position: c.slot(`${path}.position`, 'position', input.position),
    minSelections,
    maxSelections,
    customisations,
  };
}

export function checkStep(c: Checker, input: StepInput, path: string, limits: WriteLimits): StepValues {
  const id = c.id(`${path}.id`, input.id);
  const list = input.components ?? [];
  const fits = c.count(`${path}.components`, 'components', list, limits.maxComponentsPerStep);
  const components = fits ? list.map((x, i) => checkComponent(c, x, `${path}.components.${i}`, limits)) : [];
  c.distinct(
    components,
    (x) => x.id,
    (i) => `${path}.components.${i}.id`,
    'id',
  );
  return {
    ...(id ? { id } : {}),
    name: c.name(`${path}.name`, input.name),
    order: c.slot(`${path}.order`, 'order', input.order),
    required: input.required ?? false,
    components,
  };
}

/** The rows a subtree holds, itself included when it is a step or a component. */
export function sizeOf(tree: { steps: readonly StepInput[] } | StepInput | ComponentInput): TreeSize {
  const size = { steps: 0, components: 0, customisations: 0 };
  const component = (x: ComponentInput) => {
    size.components += 1;
    size.customisations += x.customisations?.length ?? 0;
  };
  const step = (x: StepInput) => {
    size.steps += 1;
    x.components?.forEach(component);
  };
  if ('steps' in tree) tree.steps.forEach(step);
  else if ('order' in tree) step(tree);
  else component(tree);
  return size;
}

/**
 * The product's totals once `added` joins what it `stores`: one error at `path` per total over its limit.
 * Counted on the input before its rows are looked into, so a huge tree is refused without more work.
 */
export function checkTotals(c: Checker, path: string, stored: TreeSize, added: TreeSize, limits: WriteLimits): boolean {
  const rules = [
    ['steps', limits.maxSteps],
    ['components', limits.maxComponentsPerProduct],
    ['customisations', limits.maxCustomisationsPerProduct],
  ] as const;
  let fits = true;
  for (const [kind, max] of rules) {
    const total = stored[kind] + added[kind];
    if (added[kind] > 0 && total > max) {
      const held = stored[kind] > 0 ? ` (it has ${stored[kind]})` : '';
      c.fail(path, `A product may have at most ${max} ${kind} in all; this would make ${total}${held}.`);
      fits = false;
    }
  }
  return fits;
}

/** A whole product: what createProduct and upsertProduct write (ids only matter to an upsert). */
export function checkProduct(
  input: ProductInput,
  limits: WriteLimits,
  path = 'input',
  defaultCurrency = 'EUR',
): ProductValues {
  const c = new Checker();
  const list = input.steps ?? [];
  const fits =
    c.count(`${path}.steps`, 'steps', list, limits.maxSteps) &&
    checkTotals(c, `${path}.steps`, { steps: 0, components: 0, customisations: 0 }, sizeOf({ steps: list }), limits);
  const steps = fits ? list.map((x, i) => checkStep(c, x, `${path}.steps.${i}`, limits)) : [];
  c.distinct(
    steps,
    (s) => s.order,
    (i) => `${path}.steps.${i}.order`,
    'order',
  );
  c.distinct(
    steps,
    (s) => s.id,
    (i) => `${path}.steps.${i}.id`,
    'id',
  );
  // An id may appear once in the whole tree: a component cannot be kept under two steps.
  c.distinct(
    steps.flatMap((s) => s.components),
    (x) => x.id,
    () => `${path}.steps`,
    'components id',
  );
  c.distinct(
    steps.flatMap((s) => s.components.flatMap((x) => x.customisations)),
    (x) => x.id,
    () => `${path}.steps`,
    'customisations id',
  );
  const values = {
    name: c.name(`${path}.name`, input.name),
    sku: c.sku(`${path}.sku`, input.sku),
    basePrice: c.price(`${path}.basePrice`, input.basePrice ?? 0, 'base price'),
    currency: c.currency(`${path}.currency`, input.currency ?? defaultCurrency),
    steps,
    rules: checkRules(c, input.rules ?? [], steps, `${path}.rules`, maxRulesOf(limits)),
  };
  c.done();
  return values;
}

/** The fields an update sets; one left out (or null) keeps its stored value. */
export function checkChanges<K extends string>(
  input: object,
  rules: Record<K, (c: Checker, path: string, value: never) => unknown>,
  path = 'input',
): Partial<Record<K, unknown>> {
  const c = new Checker();
  const changes: Partial<Record<K, unknown>> = {};
  for (const key of Object.keys(rules) as K[]) {
    const value = (input as Partial<Record<K, unknown>>)[key];
    if (value !== null && value !== undefined) changes[key] = rules[key](c, `${path}.${key}`, value as never);
  }
  c.done();
  return changes;
}

export const productRules = {
  name: (c: Checker, path: string, v: string) => c.name(path, v),
  sku: (c: Checker, path: string, v: string) => c.sku(path, v),
  basePrice: (c: Checker, path: string, v: number) => c.price(path, v, 'base price'),
  currency: (c: Checker, path: string, v: string) => c.currency(path, v),
};
export const stepRules = {
  name: (c: Checker, path: string, v: string) => c.name(path, v),
  order: (c: Checker, path: string, v: number) => c.slot(path, 'order', v),
  required: (_c: Checker, _path: string, v: boolean) => v,
};
// maxSelections is not here: its null means "no limit", not "keep" (children.ts, updateComponent).
export const componentRules = {
  name: (c: Checker, path: string, v: string) => c.name(path, v),
  position: (c: Checker, path: string, v: number) => c.slot(path, 'position', v),
  minSelections: (c: Checker, path: string, v: number) => c.bound(path, 'min selections', v),
};
export const customisationRules = {
  name: (c: Checker, path: string, v: string) => c.name(path, v),
  type: (c: Checker, path: string, v: string) => c.type(path, v),
  price: (c: Checker, path: string, v: number) => c.price(path, v),
  priceMode: (c: Checker, path: string, v: string) => c.priceMode(path, v),
};

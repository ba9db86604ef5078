import { ValidationFailed, type FieldErrors } from '../../../platform/errors.ts';
import { parseRowId } from '../../../platform/ids.ts';
import { forbiddenTextMessage, hasForbiddenText, isInvisibleText } from '../../../platform/text.ts';

// The rules of catalogue input, with Laravel's messages, collected by argument path
// (`input.steps.0.components.1.customisations.0.price`) before anything touches the database.

/** Per write and parent; and per product in all, stored and new together (maxSteps is both). */
export interface WriteLimits {
  maxSteps: number;
  maxComponentsPerStep: number;
  maxCustomisationsPerComponent: number;
  maxComponentsPerProduct: number;
  maxCustomisationsPerProduct: number;
  /** Rules one product may hold (CATALOG_MAX_RULES_PER_PRODUCT); 1000 when not given. */
  maxRulesPerProduct?: number;
}

export const DEFAULT_MAX_RULES_PER_PRODUCT = 1000;
export const maxRulesOf = (limits: WriteLimits) => limits.maxRulesPerProduct ?? DEFAULT_MAX_RULES_PER_PRODUCT;

export type PriceMode = 'ADD' | 'REPLACE_BASE';
export type RuleKind = 'REQUIRES' | 'EXCLUDES';

/** What a product holds, or what a write adds to it. */
export interface TreeSize {
  steps: number;
  components: number;
  customisations: number;
}

export interface CustomisationValues {
  id?: string;
  name: string;
  type: string;
  /** Two decimals, as numeric(12,2) stores it. */
  price: string;
  /** Checked input always has it; trees made in code (seed, tests) may leave it to the column's default. */
  priceMode?: PriceMode;
}
export interface ComponentValues {
  id?: string;
  name: string;
  position: number;
  minSelections?: number;
  /** null: no limit. */
  maxSelections?: number | null;
  customisations: CustomisationValues[];
}
export interface StepValues {
  id?: string;
  name: string;
  order: number;
  required?: boolean;
  components: ComponentValues[];
}
/** Where a rule's end is in a product's tree, as upsert matches children: a step's order, a component's position, a name. */
export interface CustomisationRef {
  stepOrder: number;
  componentPosition: number;
  name: string;
}
export interface RuleValues {
  kind: RuleKind;
  customisation: CustomisationRef;
  other: CustomisationRef;
  message: string | null;
}
export interface ProductValues {
  name: string;
  sku: string;
  basePrice: string;
  currency: string;
  steps: StepValues[];
  rules: RuleValues[];
}

type Maybe<T> = T | null | undefined;
export interface CustomisationInput {
  id?: Maybe<string>;
  name: string;
  type: string;
  price: number;
  priceMode?: Maybe<PriceMode>;
}
export interface ComponentInput {
  id?: Maybe<string>;
  name: string;
  position: number;
  minSelections?: Maybe<number>;
  /** Left out: 1; null: no limit. */
  maxSelections?: Maybe<number>;
  customisations?: Maybe<readonly CustomisationInput[]>;
}
export interface StepInput {
  id?: Maybe<string>;
  name: string;
  order: number;
  required?: Maybe<boolean>;
  components?: Maybe<readonly ComponentInput[]>;
}
export interface RuleInput {
  kind: RuleKind;
  customisation: CustomisationRef;
  other: CustomisationRef;
  message?: Maybe<string>;
}
export interface ProductInput {
  name: string;
  sku: string;
  basePrice?: Maybe<number>;
  currency?: Maybe<string>;
  steps?: Maybe<readonly StepInput[]>;
  rules?: Maybe<readonly RuleInput[]>;
}

const NAME_MAX = 200;
const SKU_MAX = 64;
const SKU_PATTERN = /^[A-Za-z0-9._-]+$/;
const TYPE_MAX = 50;
const SLOT_MAX = 1_000_000;
const PRICE_MAX = 9_999_999_999.99;
const MESSAGE_MAX = 1000;
/** The longest text any field of the catalogue accepts, in characters (an import file's reader bounds texts by it). */
export const MAX_TEXT_CHARACTERS = Math.max(NAME_MAX, SKU_MAX, TYPE_MAX, MESSAGE_MAX);
const CURRENCIES = new Set(Intl.supportedValuesOf('currency'));
const PRICE_MODES: readonly string[] = ['ADD', 'REPLACE_BASE'];
const RULE_KINDS: readonly string[] = ['REQUIRES', 'EXCLUDES'];
/** An input of thousands of bad rows gets the first ones back, not a response as large as itself. */
const MAX_REPORTED_PATHS = 100;

export class Checker {
  readonly errors: FieldErrors = {};
  private paths = 0;

  fail(path: string, message: string): void {
    if (!this.errors[path] && this.paths++ >= MAX_REPORTED_PATHS) return;
    (this.errors[path] ??= []).push(message);
  }

  text(path: string, attribute: string, value: string, max: number): string {
    const trimmed = value.trim();
    // Only invisible characters (zero-width spaces…) is as empty; text that cannot round-trip is refused here too (import).
    if (isInvisibleText(trimmed)) this.fail(path, `The ${attribute} field is required.`);
    else if (hasForbiddenText(trimmed)) this.fail(path, forbiddenTextMessage(attribute));
    else if ([...trimmed].length > max) this.fail(path, `The ${attribute} must not be greater than ${max} characters.`);
    return trimmed;
  }

  name(path: string, value: string): string {
    return this.text(path, 'name', value, NAME_MAX);
  }

  sku(path: string, value: string): string {
    const sku = this.text(path, 'sku', value, SKU_MAX);
    if (sku !== '' && [...sku].length <= SKU_MAX && !SKU_PATTERN.test(sku)) {
      this.fail(path, 'The sku may only contain letters, numbers, dots, underscores and dashes.');
    }
    return sku;
  }

  type(path: string, value: string): string {
    return this.text(path, 'type', value, TYPE_MAX);
  }

  slot(path: string, attribute: 'order' | 'position', value: number): number {
    if (!Number.isInteger(value) || value < 0 || value > SLOT_MAX) {
      this.fail(path, `The ${attribute} must be between 0 and ${SLOT_MAX}.`);
    }
    return value;
  }

  price(path: string, value: number, attribute = 'price'): string {
    if (!Number.isFinite(value) || value < 0 || value > PRICE_MAX) {
      this.fail(path, `The ${attribute} must be between 0 and ${PRICE_MAX.toFixed(2)}.`);
      return '0.00';
    }
    const text = value.toFixed(2);
    if (Number(text) !== value) this.fail(path, `The ${attribute} must have at most 2 decimals.`);
    return text;
  }

  currency(path: string, value: string): string {
    const code = value.trim();
    if (!CURRENCIES.has(code)) this.fail(path, 'The currency must be an ISO 4217 currency code, such as EUR or USD.');
    return code;
  }

  priceMode(path: string, value: string): PriceMode {
    if (!PRICE_MODES.includes(value)) this.fail(path, 'The selected price mode is invalid.');
    return value as PriceMode;
  }

  /** A selection bound: an integer from 0 to SLOT_MAX. */
  bound(path: string, attribute: string, value: number): number {
    if (!Number.isInteger(value) || value < 0 || value > SLOT_MAX) {
      this.fail(path, `The ${attribute} must be between 0 and ${SLOT_MAX}.`);
    }
    return value;
  }

  /** 0 ≤ min ≤ max (a null max is no limit); the error goes to the min's path. */
  selections(path: string, min: number, max: number | null): void {
    if (max !== null && Number.isInteger(min) && Number.isInteger(max) && min > max) {
      this.fail(path, 'The min selections must not be greater than the max selections.');
    }
  }

  message(path: string, value: Maybe<string>): string | null {
    if (value === null || value === undefined) return null;
    return this.text(path, 'message', value, MESSAGE_MAX);
  }

  id(path: string, value: Maybe<string>): string | undefined {
    if (value === null || value === undefined) return undefined;
    const id = parseRowId(value);
    if (id === null) this.fail(path, 'The selected id is invalid.');
    return id ?? undefined;
  }

  /** False (and an error at the list's path) when the list is too long to look into. */
  count(path: string, attribute: string, list: readonly unknown[], max: number): boolean {
    if (list.length <= max) return true;
    this.fail(path, `The ${attribute} must not have more than ${max} items.`);
    return false;
  }

  distinct<T>(
    items: readonly T[],
    key: (item: T) => unknown,
    path: (index: number) => string,
    attribute: string,
  ): void {
    const seen = new Set<unknown>();
    items.forEach((item, i) => {
      const k = key(item);
      if (k === undefined) return;
      if (seen.has(k)) this.fail(path(i), `The ${attribute} field has a duplicate value.`);
      seen.add(k);
    });
  }

  done(): void {
    if (Object.keys(this.errors).length > 0) throw new ValidationFailed(this.errors);
  }
}

/** The sku as the service stores it (trimmed), or undefined when the service would refuse it. */
export function validSku(value: string): string | undefined {
  const c = new Checker();
  const sku = c.sku('sku', value);
  return Object.keys(c.errors).length === 0 ? sku : undefined;
}

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
function checkRules(
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

/** Run one check on its own and throw its errors, for inputs of a single kind. */
export function check<T>(run: (c: Checker) => T): T {
  const c = new Checker();
  const result = run(c);
  c.done();
  return result;
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
// maxSelections is not here: its null means "no limit", not "keep" (operations.updateComponent).
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

import { ValidationFailed } from '../../../platform/errors.ts';
import { parseRowId } from '../../../platform/ids.ts';
import type { AnswerBudget } from '../answer-size.ts';
import { jsonBytes } from '../answer-weight.ts';
import type { CatalogLoaders } from '../loaders.ts';
import type { ProductParent } from '../parents.ts';
import {
  evaluate,
  selectionInputErrors,
  type Evaluation,
  type PriceMode,
  type PriceBreakdown,
  type ProductTree,
  type Selection,
  type Violation,
} from './engine.ts';
import { formatCents } from './money.ts';

// The shell around the pure engine: a product's tree comes through the request's loaders (one
// statement per tree level plus one for the rules, shared with whatever else the request reads),
// and the engine's cents become GraphQL's Money.

export interface MoneyParent {
  amount: string;
  currency: string;
}
export interface PriceLineParent {
  customisationId: string;
  name: string;
  mode: PriceMode;
  amount: MoneyParent;
}
export interface PriceBreakdownParent {
  base: MoneyParent;
  lines: PriceLineParent[];
  total: MoneyParent;
}
export interface ConfigurationCheckParent {
  product: ProductParent;
  valid: boolean;
  violations: Violation[];
  price: PriceBreakdownParent;
}

export interface Configured {
  product: ProductParent;
  evaluation: Evaluation;
}

export const money = (cents: number, currency: string): MoneyParent => ({ amount: formatCents(cents), currency });

export function priceBreakdownParent(price: PriceBreakdown): PriceBreakdownParent {
  return {
    base: money(price.baseCents, price.currency),
    lines: price.lines.map((l) => ({
      customisationId: l.customisationId,
      name: l.name,
      mode: l.mode,
      amount: money(l.amountCents, price.currency),
    })),
    total: money(price.totalCents, price.currency),
  };
}

export interface Configurable {
  product: ProductParent;
  tree: ProductTree;
}

/** The product's whole tree and rules, or null when there is no such product. */
export async function loadProductTree(loaders: CatalogLoaders, productId: string): Promise<Configurable | null> {
  const id = parseRowId(productId);
  const product = id === null ? null : await loaders.productsById.load(id);
  if (!product) return null;
  const [steps, rules] = await Promise.all([
    loaders.stepsByProductId.load(product.id),
    loaders.rulesByProductId.load(product.id),
  ]);
  const components = await Promise.all(steps.map((s) => loaders.componentsByStepId.load(s.id)));
  const customisations = await Promise.all(
    components.map((list) => Promise.all(list.map((c) => loaders.customisationsByComponentId.load(c.id)))),
  );
  const tree: ProductTree = {
    basePriceCents: product.basePriceCents,
    currency: product.currency,
    rules,
    steps: steps.map((step, i) => ({
      id: step.id,
      name: step.name,
      order: step.order,
      required: step.required,
      components: components[i]!.map((component, j) => ({
        id: component.id,
        name: component.name,
        position: component.position,
        minSelections: component.minSelections,
        maxSelections: component.maxSelections,
        customisations: customisations[i]![j]!.map((c) => {
          // A price line's `customisation` then costs no statement.
          loaders.customisationsById.prime(c.id, c);
          return {
            id: c.id,
            name: c.name,
            type: c.type,
            priceCents: c.priceCents,
            priceMode: c.priceMode,
          };
        }),
      })),
    })),
  };
  return { product, tree };
}

/**
 * The selection checked as input, and today's tree of its product; null when there is no such product. A
 * refusal's messages are charged to the request's answer first: an answer of errors is an answer too.
 */
export async function loadConfigurable(
  loaders: CatalogLoaders,
  productId: string,
  selections: readonly Selection[],
  answer?: AnswerBudget,
): Promise<Configurable | null> {
  const errors = selectionInputErrors(selections);
  if (errors) {
    answer?.chargeBytes(jsonBytes(errors));
    throw new ValidationFailed(errors);
  }
  return loadProductTree(loaders, productId);
}

/** Runs the engine, unless the request's answer is already over its bound: its result could only be refused. */
export function configureLoaded(
  { product, tree }: Configurable,
  selections: readonly Selection[],
  answer?: AnswerBudget,
): Configured {
  answer?.assertRoom();
  return { product, evaluation: evaluate(tree, selections) };
}

/** Checks and prices a selection against today's catalogue; null when the product does not exist. */
export async function configureProduct(
  loaders: CatalogLoaders,
  productId: string,
  selections: readonly Selection[],
  answer?: AnswerBudget,
): Promise<Configured | null> {
  const loaded = await loadConfigurable(loaders, productId, selections, answer);
  return loaded && configureLoaded(loaded, selections, answer);
}

export function configurationCheckParent({ product, evaluation }: Configured): ConfigurationCheckParent {
  return {
    product,
    valid: evaluation.valid,
    violations: evaluation.violations,
    price: priceBreakdownParent(evaluation.price),
  };
}

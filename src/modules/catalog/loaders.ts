import DataLoader from 'dataloader';
import type { CatalogDb } from './tables.ts';
import type {
  ComponentParent,
  ConfigurationRuleParent,
  CustomisationParent,
  ProductParent,
  StepParent,
} from './parents.ts';
import {
  findComponentsByIds,
  findComponentsByStepIds,
  findCustomisationsByComponentIds,
  findCustomisationsByIds,
  findProductsByIds,
  findRulesByProductIds,
  findStepsByIds,
  findStepsByProductIds,
} from './repository.ts';
import { findProductsBySkus } from './find/repository.ts';
import { readProducts, readSkus, readTreeRows } from './changes.ts';

/** Groups rows by a key, returning one array per requested key, in key order. */
function groupByKey<R>(keys: readonly string[], rows: R[], keyOf: (r: R) => string): R[][] {
  const groups = new Map<string, R[]>(keys.map((k) => [k, []]));
  for (const row of rows) groups.get(keyOf(row))?.push(row);
  return keys.map((k) => groups.get(k)!);
}

/** One row (or null) per requested id, in key order. */
function rowsById<R extends { id: string }>(ids: readonly string[], rows: R[]): (R | null)[] {
  const found = new Map(rows.map((r) => [r.id, r]));
  return ids.map((id) => found.get(id) ?? null);
}

/** One row (or null) per requested id, noting what the answer then depends on (changes.ts). */
function treeRowsById<R extends { id: string; product_id: string }>(ids: readonly string[], rows: R[]): (R | null)[] {
  readTreeRows(ids, rows);
  return rowsById(ids, rows);
}

/**
 * Per request, so nothing is cached across users; one statement per tree level whatever the page size.
 * Every tree read goes through a product or names its product: the answer depends on those products.
 */
export function createCatalogLoaders(db: CatalogDb) {
  const productsById = new DataLoader<string, ProductParent | null>(async (ids) => {
    readProducts(ids);
    return rowsById(ids, await findProductsByIds(db, ids));
  });
  return {
    productsById,
    // Exact and case-sensitive, as the unique index compares; found products also serve product(id).
    productsBySku: new DataLoader<string, ProductParent | null>(async (skus) => {
      readSkus();
      const found = new Map((await findProductsBySkus(db, skus)).map((p) => [p.sku, p]));
      readProducts(Array.from(found.values(), (p) => p.id));
      for (const product of found.values()) productsById.prime(product.id, product);
      return skus.map((sku) => found.get(sku) ?? null);
    }),
    stepsById: new DataLoader<string, StepParent | null>(async (ids) =>
      treeRowsById(ids, await findStepsByIds(db, ids)),
    ),
    componentsById: new DataLoader<string, ComponentParent | null>(async (ids) =>
      treeRowsById(ids, await findComponentsByIds(db, ids)),
    ),
    customisationsById: new DataLoader<string, CustomisationParent | null>(async (ids) =>
      treeRowsById(ids, await findCustomisationsByIds(db, ids)),
    ),
    stepsByProductId: new DataLoader<string, StepParent[]>(async (ids) =>
      groupByKey(ids, await findStepsByProductIds(db, ids), (r) => r.product_id),
    ),
    componentsByStepId: new DataLoader<string, ComponentParent[]>(async (ids) =>
      groupByKey(ids, await findComponentsByStepIds(db, ids), (r) => r.step_id),
    ),
    customisationsByComponentId: new DataLoader<string, CustomisationParent[]>(async (ids) =>
      groupByKey(ids, await findCustomisationsByComponentIds(db, ids), (r) => r.component_id),
    ),
    rulesByProductId: new DataLoader<string, ConfigurationRuleParent[]>(async (ids) =>
      groupByKey(ids, await findRulesByProductIds(db, ids), (r) => r.product_id),
    ),
  };
}

export type CatalogLoaders = ReturnType<typeof createCatalogLoaders>;

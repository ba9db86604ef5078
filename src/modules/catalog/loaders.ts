import DataLoader from 'dataloader';
import type { Db } from '../../platform/db.ts';
import {
  toComponentParent,
  toCustomisationParent,
  toProductParent,
  toStepParent,
  type ComponentParent,
  type CustomisationParent,
  type ProductParent,
  type StepParent,
} from './mappers.ts';
import {
  findComponentsByIds,
  findComponentsByStepIds,
  findCustomisationsByComponentIds,
  findCustomisationsByIds,
  findProductsByIds,
  findStepsByIds,
  findStepsByProductIds,
} from './repository.ts';

/** Groups rows by a key, returning one array per requested key, in key order. */
function groupByKey<R, P>(keys: readonly string[], rows: R[], keyOf: (r: R) => string, map: (r: R) => P): P[][] {
  const groups = new Map<string, P[]>(keys.map((k) => [k, []]));
  for (const row of rows) groups.get(keyOf(row))?.push(map(row));
  return keys.map((k) => groups.get(k)!);
}

/** One parent (or null) per requested id, in key order. */
function parentsById<R extends { id: string }, P>(ids: readonly string[], rows: R[], map: (r: R) => P): (P | null)[] {
  const found = new Map(rows.map((r) => [String(r.id), map(r)]));
  return ids.map((id) => found.get(id) ?? null);
}

/**
 * Per-request loaders: one SQL statement per level of the product tree, whatever
 * the page size. Created in the request context so nothing is cached across users.
 */
export function createCatalogLoaders(db: Db) {
  return {
    productsById: new DataLoader<string, ProductParent | null>(async (ids) => {
      const rows = await findProductsByIds(db, ids);
      const byId = new Map(rows.map((r) => [String(r.id), toProductParent(r)]));
      return ids.map((id) => byId.get(id) ?? null);
    }),
    stepsById: new DataLoader<string, StepParent | null>(async (ids) =>
      parentsById(ids, await findStepsByIds(db, ids), toStepParent),
    ),
    componentsById: new DataLoader<string, ComponentParent | null>(async (ids) =>
      parentsById(ids, await findComponentsByIds(db, ids), toComponentParent),
    ),
    customisationsById: new DataLoader<string, CustomisationParent | null>(async (ids) =>
      parentsById(ids, await findCustomisationsByIds(db, ids), toCustomisationParent),
    ),
    stepsByProductId: new DataLoader<string, StepParent[]>(async (ids) =>
      groupByKey(ids, await findStepsByProductIds(db, ids), (r) => String(r.product_id), toStepParent),
    ),
    componentsByStepId: new DataLoader<string, ComponentParent[]>(async (ids) =>
      groupByKey(ids, await findComponentsByStepIds(db, ids), (r) => String(r.step_id), toComponentParent),
    ),
    customisationsByComponentId: new DataLoader<string, CustomisationParent[]>(async (ids) =>
      groupByKey(
        ids,
        await findCustomisationsByComponentIds(db, ids),
        (r) => String(r.component_id),
        toCustomisationParent,
      ),
    ),
  };
}

export type CatalogLoaders = ReturnType<typeof createCatalogLoaders>;

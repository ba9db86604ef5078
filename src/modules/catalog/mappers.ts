import type { ComponentRow, CustomisationRow, ProductRow, StepRow } from './repository.ts';

// Rows in, GraphQL parents out. The only place that knows pg hands bigint and
// numeric over as strings.

export interface ProductParent {
  id: string;
  name: string;
  sku: string;
}
export interface StepParent {
  id: string;
  name: string;
  order: number;
}
export interface ComponentParent {
  id: string;
  name: string;
}
export interface CustomisationParent {
  id: string;
  name: string;
  type: string;
  price: number;
}

export const toProductParent = (r: ProductRow): ProductParent => ({ id: String(r.id), name: r.name, sku: r.sku });
export const toStepParent = (r: StepRow): StepParent => ({ id: String(r.id), name: r.name, order: r.order });
export const toComponentParent = (r: ComponentRow): ComponentParent => ({ id: String(r.id), name: r.name });
// numeric(12,2) is at most 10 integer digits plus 2 decimals: well inside a
// double's 15 exact significant digits, so Number() yields the shortest float
// that prints back as the stored value (0.29 stays 0.29).
export const toCustomisationParent = (r: CustomisationRow): CustomisationParent => ({
  id: String(r.id),
  name: r.name,
  type: r.type,
  price: Number(r.price),
});

import { dependsOn } from '../../platform/request-context.ts';
import type { ProductQuery } from './find/query.ts';

// What cached answers read from the catalogue, in the terms of the catalogue's change notifications
// (migration 0019): a product's id, or one of the keys lists depend on. An answer is dropped when a
// change names a tag it read; product(id) reads its product's tag even when no such product exists,
// so inserting it drops the cached null.

/** The keys of migration 0019's payload; MEMBERSHIP moves with every insert and delete. */
const KEY = { MEMBERSHIP: 'm', NAME: 'n', SKU: 's', BASE_PRICE: 'p', CREATED_AT: 'c', UPDATED_AT: 'u' } as const;

const productTag = (id: string) => `product:${id}`;
const listTag = (key: string) => `products:${key}`;

export function readProducts(ids: Iterable<string>): void {
  dependsOn(Array.from(ids, productTag));
}

/**
 * Steps, components or customisations read by their own ids, found or not: a row found depends on its
 * product; one not found yet appears with an insert, which moves some product's updated_at.
 */
export function readTreeRows(ids: readonly string[], rows: readonly { product_id: string }[]): void {
  readProducts(rows.map((r) => r.product_id));
  if (rows.length < ids.length) dependsOn([listTag(KEY.UPDATED_AT)]);
}

/** A page of products(search, filter, orderBy): its membership, order and totals, whatever its rows. */
export function readProductList(query: ProductQuery): void {
  const keys = new Set<string>([KEY.MEMBERSHIP]);
  if (query.search !== null) keys.add(KEY.NAME).add(KEY.SKU);
  if (query.skus !== null) keys.add(KEY.SKU);
  if (query.updatedAfter !== null) keys.add(KEY.UPDATED_AT);
  for (const clause of query.order) keys.add(KEY[clause.column]);
  dependsOn(Array.from(keys, listTag));
}

/** productBySku: which product holds a sku moves with skus and membership. */
export function readSkus(): void {
  dependsOn([listTag(KEY.MEMBERSHIP), listTag(KEY.SKU)]);
}

/** The tags a notification names, or 'all' (a TRUNCATE, a large statement, an older trigger's ''). */
export function changedTags(payload: string): string[] | 'all' {
  const colon = payload.indexOf(':');
  if (colon < 0) return 'all';
  const keys = payload.slice(0, colon);
  const ids = payload.slice(colon + 1);
  if (!/^[mnspcu]*$/.test(keys) || !/^[0-9]+(,[0-9]+)*$/.test(ids)) return 'all';
  return [...Array.from(keys, listTag), ...ids.split(',').map(productTag)];
}

/** Whether a notification may have moved the number of products (the unfiltered total). */
export function movesMembership(payload: string): boolean {
  const tags = changedTags(payload);
  return tags === 'all' || tags.includes(listTag(KEY.MEMBERSHIP));
}

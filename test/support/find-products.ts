// What the find-products tests share: the columns products(orderBy) sorts by, and a row with each of them.

export const ORDER_COLUMNS = ['ID', 'NAME', 'SKU', 'BASE_PRICE', 'CREATED_AT', 'UPDATED_AT'] as const;
export type OrderColumn = (typeof ORDER_COLUMNS)[number];

/** A product as the tests select it: every field an order can sort by. */
export interface SortableRow {
  id: string;
  name: string;
  sku: string;
  basePrice: number;
  createdAt: string;
  updatedAt: string;
}

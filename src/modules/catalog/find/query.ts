import { crc32 } from 'node:zlib';
import { BadInput } from '../../../platform/errors.ts';
import { EARLIEST_INSTANT, isStorableInstant, LATEST_INSTANT } from '../../../platform/instants.ts';
import type { ProductParent } from '../parents.ts';

// What `products(search, filter, orderBy)` asks for, checked and put in one canonical form: the form
// the SQL is built from and the form a cursor is bound to.

export const MAX_SEARCH_LENGTH = 100;
export const MAX_FILTER_SKUS = 100;
export const MAX_ORDER_CLAUSES = 2;

export const ORDER_COLUMNS = ['ID', 'NAME', 'SKU', 'BASE_PRICE', 'CREATED_AT', 'UPDATED_AT'] as const;
export type OrderColumn = (typeof ORDER_COLUMNS)[number];
/** NAME and SKU sort by their first 200 characters, the longest the catalogue accepts (migration 0018's indexes). */
export const SORT_TEXT_LENGTH = 200;

export interface OrderClause {
  column: Exclude<OrderColumn, 'ID'>;
  descending: boolean;
}

export interface ProductQuery {
  /** Trimmed, 1 to 100 characters; null: no search. */
  search: string | null;
  skus: string[] | null;
  updatedAfter: Date | null;
  /** The clauses before the final id; empty: by id alone. */
  order: OrderClause[];
  /** The id's direction: ascending, unless the query sorts by id descending. */
  idDescending: boolean;
}

export interface ProductQueryArgs {
  search?: string | null | undefined;
  filter?: { skus?: string[] | null | undefined; updatedAfter?: Date | null | undefined } | null | undefined;
  /** The SDL's enums, as their values. */
  orderBy?: readonly { column: string; order?: string | null | undefined }[] | null;
}

export function productQueryOf(args: ProductQueryArgs): ProductQuery {
  const search = args.search?.trim() || null;
  if (search !== null && [...search].length > MAX_SEARCH_LENGTH) {
    throw new BadInput(`search must be at most ${MAX_SEARCH_LENGTH} characters, got ${[...search].length}.`);
  }
  const skus = args.filter?.skus ?? null;
  if (skus !== null && skus.length > MAX_FILTER_SKUS) {
    throw new BadInput(`filter.skus may hold at most ${MAX_FILTER_SKUS} skus, got ${skus.length}.`);
  }
  const updatedAfter = args.filter?.updatedAfter ?? null;
  // The DateTime scalar refuses these first; a caller past it (a test, another module) still never reaches SQL.
  if (updatedAfter !== null && !isStorableInstant(updatedAfter)) {
    throw new BadInput(`filter.updatedAfter must lie between ${EARLIEST_INSTANT} and ${LATEST_INSTANT}.`);
  }

  const clauses = args.orderBy ?? [];
  if (clauses.length > MAX_ORDER_CLAUSES) {
    throw new BadInput(`orderBy may hold at most ${MAX_ORDER_CLAUSES} clauses, got ${clauses.length}.`);
  }
  const order: OrderClause[] = [];
  const seen = new Set<string>();
  let idDescending = false;
  for (const clause of clauses) {
    const column = ORDER_COLUMNS.find((c) => c === clause.column);
    if (column === undefined) throw new BadInput(`orderBy has no column ${clause.column}.`);
    if (seen.has(column)) throw new BadInput(`orderBy names ${column} twice.`);
    seen.add(column);
    const descending = clause.order === 'DESC';
    if (column === 'ID') {
      // The id is unique: nothing after it can change the order.
      idDescending = descending;
      break;
    }
    order.push({ column, descending });
  }
  return { search, skus: skus && [...skus], updatedAfter, order, idDescending };
}

/** The seed's query: every product by id ascending, paged with the cursors issued before search existed. */
export function isDefaultQuery(q: ProductQuery): boolean {
  return q.search === null && q.skus === null && q.updatedAfter === null && q.order.length === 0 && !q.idDescending;
}

/** A short digest of the query a cursor belongs to: used with another query, the cursor is refused. */
export function bindingOf(q: ProductQuery): string {
  const canonical = JSON.stringify([
    q.search,
    q.skus,
    q.updatedAfter?.toISOString() ?? null,
    q.order.map((c) => [c.column, c.descending]),
    q.idDescending,
  ]);
  return crc32(canonical).toString(16).padStart(8, '0');
}

/** The row's fields a sort key is read from. */
export type SortedRow = Pick<ProductParent, 'name' | 'sku' | 'basePrice' | 'createdAt' | 'updatedAt'>;

/** What NAME and SKU sort by: the first SORT_TEXT_LENGTH characters (code points, as PostgreSQL's left() counts). */
function sortText(text: string): string {
  const characters = Array.from(text);
  return characters.length <= SORT_TEXT_LENGTH ? text : characters.slice(0, SORT_TEXT_LENGTH).join('');
}

/** The page's sort key values of a row, as text the SQL casts back exactly, in the order's clause order. */
export function sortValuesOf(q: ProductQuery, row: SortedRow): string[] {
  return q.order.map(({ column }) => {
    switch (column) {
      case 'NAME':
        return sortText(row.name);
      case 'SKU':
        return sortText(row.sku);
      // numeric(12,2) read as float8: the shortest text of that double is the decimal itself.
      case 'BASE_PRICE':
        return String(row.basePrice);
      // timestamptz(3): milliseconds are the whole value.
      case 'CREATED_AT':
        return new Date(row.createdAt).toISOString();
      case 'UPDATED_AT':
        return new Date(row.updatedAt).toISOString();
    }
  });
}

const DECIMAL = /^[0-9]{1,10}(\.[0-9]{1,2})?$/;
const INSTANT = /^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}Z$/;
// In UTF-16 units: at most two a character.
const MAX_TEXT_VALUE_LENGTH = 2 * SORT_TEXT_LENGTH;

/** Whether a value read from a cursor is one `sortValuesOf` could have written: a forged one never reaches a cast. */
export function validSortValue(q: ProductQuery, index: number, value: string): boolean {
  switch (q.order[index]?.column) {
    case 'NAME':
    case 'SKU':
      return value.length <= MAX_TEXT_VALUE_LENGTH;
    case 'BASE_PRICE':
      return DECIMAL.test(value);
    case 'CREATED_AT':
    case 'UPDATED_AT':
      // Year 0000 has the form and parses, yet PostgreSQL refuses it: a forged position is refused here.
      return INSTANT.test(value) && isStorableInstant(new Date(value)) && new Date(value).toISOString() === value;
    default:
      return false;
  }
}

import { BadInput } from '../../platform/errors.ts';
import type { CatalogDb } from './tables.ts';
import type { CatalogLoaders } from './loaders.ts';
import type { ProductParent } from './parents.ts';
import {
  buildPaginatorInfo,
  decodeCursor,
  decodeKeysetCursor,
  encodeCursor,
  encodeKeysetCursor,
  type KeysetPosition,
  type PaginatorCounts,
  type PaginatorInfo,
} from './pagination.ts';
import type { ProductTotal } from './total.ts';
import { findProductPage, type ProductPageRows } from './repository.ts';
import {
  bindingOf,
  isDefaultQuery,
  productQueryOf,
  sortValuesOf,
  validSortValue,
  type ProductQuery,
  type ProductQueryArgs,
  type SortedRow,
} from './find/query.ts';
import { findProductQueryPage } from './find/repository.ts';
import { readProductList, readProducts } from './changes.ts';

const PRODUCT_CURSOR_KIND = 'product';
export interface ProductPage {
  data: ProductParent[];
  paginatorInfo: PaginatorInfo;
}

export interface ProductPageArgs extends ProductQueryArgs {
  first: number;
  after?: string | null | undefined;
  counts: PaginatorCounts;
}

export async function getProductPage(
  db: CatalogDb,
  loaders: CatalogLoaders,
  totals: ProductTotal,
  args: ProductPageArgs,
  maxPageSize: number,
): Promise<ProductPage> {
  const { first } = args;
  if (first > maxPageSize) {
    // Lighthouse's wording, which clients of the original service may match on.
    throw new BadInput(
      `Maximum number of ${maxPageSize} requested items exceeded, got ${first}. Fetch smaller chunks.`,
    );
  }
  if (first < 1) {
    throw new BadInput(`Requested page size must be at least 1, got ${first}.`);
  }
  const query = productQueryOf(args);
  readProductList(query);
  const page = isDefaultQuery(query)
    ? await defaultPage(db, totals, args.after, first, args.counts)
    : await queryPage(db, query, args.after, first, args.counts.total || args.counts.position);
  const data: ProductParent[] = page.rows.slice(0, first);
  readProducts(data.map((p) => p.id));
  // Later product(id) selections in the same request reuse these rows.
  for (const product of data) loaders.productsById.prime(product.id, product);
  const last = data.at(-1);
  return {
    data,
    paginatorInfo: buildPaginatorInfo({
      perPage: first,
      total: page.total,
      skipped: page.skipped,
      count: data.length,
      hasMorePages: page.rows.length > first,
      endCursor: last ? page.cursorAfter(last) : null,
    }),
  };
}

type Page = ProductPageRows & { cursorAfter(row: ProductParent): string };

/**
 * By id ascending, with no search or filter: the cursors of the seed's query, unchanged. The total is
 * counted only when not known from the change feed (total.ts); the position only deep in a walk.
 */
async function defaultPage(
  db: CatalogDb,
  totals: ProductTotal,
  after: string | null | undefined,
  first: number,
  counts: PaginatorCounts,
) {
  let afterId: string | null = null;
  if (after !== null && after !== undefined) {
    afterId = decodeCursor(PRODUCT_CURSOR_KIND, after);
    if (afterId === null) throw new BadInput('Invalid cursor.');
  }
  const cursorAfter = (row: ProductParent) => encodeCursor(PRODUCT_CURSOR_KIND, row.id);
  const known = counts.total ? totals.known() : undefined;
  if (counts.total && known === undefined) {
    const ticket = totals.ticket();
    const page = await findProductPage(db, { afterId, limit: first + 1, counts: 'all' });
    totals.offer(ticket, page.total!);
    return { ...page, cursorAfter } satisfies Page;
  }
  const counted = counts.position && afterId !== null ? 'position' : 'none';
  const page = await findProductPage(db, { afterId, limit: first + 1, counts: counted });
  const skipped = counted === 'position' ? page.skipped : counts.position ? 0 : null;
  return { ...page, total: known ?? null, skipped, cursorAfter } satisfies Page;
}

async function queryPage(
  db: CatalogDb,
  query: ProductQuery,
  after: string | null | undefined,
  first: number,
  withCounts: boolean,
) {
  const binding = bindingOf(query);
  let position: KeysetPosition | null = null;
  if (after !== null && after !== undefined) {
    position = decodeKeysetCursor(binding, after, query.order.length, (i, v) => validSortValue(query, i, v));
    if (position === null) throw new BadInput('Invalid cursor.');
  }
  const page = await findProductQueryPage(db, query, { after: position, limit: first + 1, withCounts });
  return {
    ...page,
    cursorAfter: (row: ProductParent) => encodeKeysetCursor(binding, { values: sortValuesOf(query, row), id: row.id }),
  } satisfies Page;
}

/** The endCursor of a products(args) page ending on this row, as the service would issue it (scripts/bench draws cursors with it). */
export function productCursorAfter(args: ProductQueryArgs, row: SortedRow & { id: string }): string {
  const query = productQueryOf(args);
  if (isDefaultQuery(query)) return encodeCursor(PRODUCT_CURSOR_KIND, row.id);
  return encodeKeysetCursor(bindingOf(query), { values: sortValuesOf(query, row), id: row.id });
}

import { badUserInputError } from '../../platform/errors.ts';
import type { Db } from '../../platform/db.ts';
import type { CatalogLoaders } from './loaders.ts';
import type { ProductParent } from './mappers.ts';
import { buildPaginatorInfo, decodeCursor, encodeCursor, type PaginatorInfo } from './pagination.ts';
import { findProductPage } from './repository.ts';

const PRODUCT_CURSOR_KIND = 'product';
const MAX_BIGINT = 9223372036854775807n;

/** A catalog id (a bigint identity) as the database can hold it, or null for anything no row can have. */
export function parseCatalogId(id: string): string | null {
  if (!/^[1-9][0-9]{0,18}$/.test(id)) return null;
  return BigInt(id) <= MAX_BIGINT ? id : null;
}


export interface ProductPage {
  data: ProductParent[];
  paginatorInfo: PaginatorInfo;
}

export async function getProductPage(
  db: Db,
  loaders: CatalogLoaders,
  args: { first: number; after: string | null | undefined; maxPageSize: number; withCounts: boolean },
): Promise<ProductPage> {
  const { first, maxPageSize } = args;
  if (first > maxPageSize) {
    // Lighthouse's wording, which clients of the original service may match on.
    throw badUserInputError(`Maximum number of ${maxPageSize} requested items exceeded, got ${first}. Fetch smaller chunks.`);
  }
  if (first < 1) {
    throw badUserInputError(`Requested page size must be at least 1, got ${first}.`);
  }
  let afterId: string | null = null;
  if (args.after !== null && args.after !== undefined) {
    afterId = decodeCursor(PRODUCT_CURSOR_KIND, args.after);
    if (afterId === null) throw badUserInputError('Invalid cursor.');
  }

  const page = await findProductPage(db, { afterId, limit: first + 1, withCounts: args.withCounts });
  const data: ProductParent[] = page.rows.slice(0, first);
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
      endCursor: last ? encodeCursor(PRODUCT_CURSOR_KIND, last.id) : null,
    }),
  };
}

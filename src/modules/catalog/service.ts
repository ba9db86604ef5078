import { BadInput } from '../../platform/errors.ts';
import type { CatalogDb } from './tables.ts';
import type { CatalogLoaders } from './loaders.ts';
import type { ProductParent } from './mappers.ts';
import { buildPaginatorInfo, decodeCursor, encodeCursor, type PaginatorInfo } from './pagination.ts';
import { findProductPage } from './repository.ts';

const PRODUCT_CURSOR_KIND = 'product';
export interface ProductPage {
  data: ProductParent[];
  paginatorInfo: PaginatorInfo;
}

export interface ProductPageArgs {
  first: number;
  after: string | null | undefined;
  withCounts: boolean;
}

export async function getProductPage(
  db: CatalogDb,
  loaders: CatalogLoaders,
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
  let afterId: string | null = null;
  if (args.after !== null && args.after !== undefined) {
    afterId = decodeCursor(PRODUCT_CURSOR_KIND, args.after);
    if (afterId === null) throw new BadInput('Invalid cursor.');
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

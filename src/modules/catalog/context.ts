import type { Config } from '../../config.ts';
import type { GraphQLContext } from '../../graphql/context.ts';
import { createCatalogLoaders, type CatalogLoaders } from './loaders.ts';
import { getProductPage, type ProductPageArgs } from './service.ts';
import type { CatalogDb } from './tables.ts';

/** The catalog's part of a request's GraphQL context: loaders are new for every request. */
export interface CatalogRequest {
  loaders: CatalogLoaders;
  productPage(args: ProductPageArgs): ReturnType<typeof getProductPage>;
}

export type CatalogContext = GraphQLContext & { catalog: CatalogRequest };

export function createCatalogRequest(db: CatalogDb, config: Pick<Config, 'maxPageSize'>): CatalogRequest {
  const loaders = createCatalogLoaders(db);
  return {
    loaders,
    productPage: (args) => getProductPage(db, loaders, args, config.maxPageSize),
  };
}

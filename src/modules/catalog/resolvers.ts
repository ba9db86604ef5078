import type { Resolvers } from '../../graphql/generated/resolvers-types.ts';
import { selectsPaginatorCounts } from './pagination.ts';
import { getProductPage, parseCatalogId } from './service.ts';

// Adapters only: read the arguments, call a loader or the service, return.
// Typed by the code generated from schema/ (`npm run codegen`): parents are the
// mappers' *Parent types, so a field renamed or retyped in the SDL fails tsc here.
// `__resolveReference` answers federation's `_entities`: references go through the
// same per-request loaders, so a batch of N references costs one statement per type.
export const catalogResolvers: Resolvers = {
  Query: {
    products: (_, args, ctx, info) =>
      getProductPage(ctx.db, ctx.loaders.catalog, {
        first: args.first,
        after: args.after,
        maxPageSize: ctx.config.maxPageSize,
        withCounts: selectsPaginatorCounts(info),
      }),
    product: (_, args, ctx) => {
      const id = parseCatalogId(args.id);
      return id === null ? null : ctx.loaders.catalog.productsById.load(id);
    },
  },
  Product: {
    __resolveReference: (ref, ctx) => {
      const id = parseCatalogId(ref.id);
      return id === null ? null : ctx.loaders.catalog.productsById.load(id);
    },
    steps: (product, _, ctx) => ctx.loaders.catalog.stepsByProductId.load(product.id),
  },
  Step: {
    __resolveReference: (ref, ctx) => {
      const id = parseCatalogId(ref.id);
      return id === null ? null : ctx.loaders.catalog.stepsById.load(id);
    },
    components: (step, _, ctx) => ctx.loaders.catalog.componentsByStepId.load(step.id),
  },
  Component: {
    __resolveReference: (ref, ctx) => {
      const id = parseCatalogId(ref.id);
      return id === null ? null : ctx.loaders.catalog.componentsById.load(id);
    },
    customisations: (component, _, ctx) => ctx.loaders.catalog.customisationsByComponentId.load(component.id),
  },
  Customisation: {
    __resolveReference: (ref, ctx) => {
      const id = parseCatalogId(ref.id);
      return id === null ? null : ctx.loaders.catalog.customisationsById.load(id);
    },
  },
};

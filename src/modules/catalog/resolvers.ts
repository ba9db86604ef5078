import type DataLoader from 'dataloader';
import { parseRowId } from '../../platform/ids.ts';
import type { Resolvers } from './generated/resolvers-types.ts';
import { selectsPaginatorCounts } from './pagination.ts';

// Typed by codegen from the SDL, so a field renamed or retyped in schema/catalog/ fails tsc here.

/** An entity by id through the request's loader; ids no row can have are null without a query. */
const byId = <T>(loader: DataLoader<string, T | null>, id: string) => {
  const rowId = parseRowId(id);
  return rowId === null ? null : loader.load(rowId);
};

export const catalogResolvers: Resolvers = {
  Query: {
    products: (_, args, ctx, info) =>
      ctx.catalog.productPage({ first: args.first, after: args.after, withCounts: selectsPaginatorCounts(info) }),
    product: (_, args, ctx) => byId(ctx.catalog.loaders.productsById, args.id),
  },
  // `_entities` goes through the same loaders: N references cost one statement per type.
  Product: {
    __resolveReference: (ref, ctx) => byId(ctx.catalog.loaders.productsById, ref.id),
    steps: (product, _, ctx) => ctx.catalog.loaders.stepsByProductId.load(product.id),
  },
  Step: {
    __resolveReference: (ref, ctx) => byId(ctx.catalog.loaders.stepsById, ref.id),
    components: (step, _, ctx) => ctx.catalog.loaders.componentsByStepId.load(step.id),
  },
  Component: {
    __resolveReference: (ref, ctx) => byId(ctx.catalog.loaders.componentsById, ref.id),
    customisations: (component, _, ctx) => ctx.catalog.loaders.customisationsByComponentId.load(component.id),
  },
  Customisation: {
    __resolveReference: (ref, ctx) => byId(ctx.catalog.loaders.customisationsById, ref.id),
  },
};

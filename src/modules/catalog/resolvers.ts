import type { GraphQLContext } from '../../graphql/context.ts';
import type { ComponentParent, ProductParent, StepParent } from './mappers.ts';
import { getProductPage, parseProductId } from './service.ts';

// Adapters only: read the arguments, call a loader or the service, return.
export const catalogResolvers = {
  Query: {
    products: (_: unknown, args: { first: number; after?: string | null }, ctx: GraphQLContext) =>
      getProductPage(ctx.db, ctx.loaders.catalog, {
        first: args.first,
        after: args.after,
        maxPageSize: ctx.config.maxPageSize,
      }),
    product: (_: unknown, args: { id: string }, ctx: GraphQLContext) => {
      const id = parseProductId(args.id);
      return id === null ? null : ctx.loaders.catalog.productsById.load(id);
    },
  },
  Product: {
    steps: (product: ProductParent, _: unknown, ctx: GraphQLContext) =>
      ctx.loaders.catalog.stepsByProductId.load(product.id),
  },
  Step: {
    components: (step: StepParent, _: unknown, ctx: GraphQLContext) =>
      ctx.loaders.catalog.componentsByStepId.load(step.id),
  },
  Component: {
    customisations: (component: ComponentParent, _: unknown, ctx: GraphQLContext) =>
      ctx.loaders.catalog.customisationsByComponentId.load(component.id),
  },
};

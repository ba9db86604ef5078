import type DataLoader from 'dataloader';
import { parseRowId } from '../../platform/ids.ts';
import type { Resolvers } from './generated/resolvers-types.ts';
import { fieldsPerItem, selectionWeights } from './answer-size.ts';
import { selectedPaginatorCounts } from './pagination.ts';
import { configurationCheckParent, configureLoaded, loadConfigurable } from './configure/service.ts';
import { decimalScalar } from './configure/decimal.ts';

// Typed by codegen from the SDL, so a field renamed or retyped in schema/catalog/ fails tsc here.

/** An entity by id through the request's loader; ids no row can have are null without a query. */
const byId = <T>(loader: DataLoader<string, T | null>, id: string) => {
  const rowId = parseRowId(id);
  return rowId === null ? null : loader.load(rowId);
};

export const catalogResolvers: Resolvers = {
  Query: {
    products: async (_, args, ctx, info) =>
      ctx.catalog.answer.charge(
        await ctx.catalog.productPage({ ...args, counts: selectedPaginatorCounts(info) }),
        info,
      ),
    product: (_, args, ctx) => byId(ctx.catalog.loaders.productsById, args.id),
    // Writes store skus trimmed, so a lookup trims too (issue 30 item 8).
    productBySku: (_, args, ctx) => ctx.catalog.loaders.productsBySku.load(args.sku.trim()),
    // Weighed whole (violations echo the ids sent, and price lines name every choice) before it is answered.
    configure: async (_, args, ctx, info) => {
      const { loaders, answer } = ctx.catalog;
      const loaded = await loadConfigurable(loaders, args.productId, args.selections, answer);
      // Synchronous from here: another alias's engine runs only once this answer is charged, and not when over.
      return loaded && answer.charge(configurationCheckParent(configureLoaded(loaded, args.selections, answer)), info);
    },
  },
  Decimal: decimalScalar,
  // `_entities` goes through the same loaders: N references cost one statement per type.
  Product: {
    __resolveReference: (ref, ctx) => byId(ctx.catalog.loaders.productsById, ref.id),
    // The product's counts price its whole tree here, before a row of it is read (answer-size.ts).
    steps: async (product, _, ctx, info) => {
      const [perStep, perComponent, perCustomisation] = selectionWeights(info.fieldNodes, info.fragments, 3);
      ctx.catalog.answer.chargeFields(
        perStep! * product.stepCount +
          perComponent! * product.componentCount +
          perCustomisation! * product.customisationCount,
      );
      const steps = await ctx.catalog.loaders.stepsByProductId.load(product.id);
      ctx.catalog.answer.markPaid(steps);
      return ctx.catalog.answer.charge(steps, info);
    },
    // Rules are not among the product's counts: priced by the rows read, before they are answered.
    rules: async (product, _, ctx, info) => {
      const rules = await ctx.catalog.loaders.rulesByProductId.load(product.id);
      ctx.catalog.answer.chargeFields(fieldsPerItem(info.fieldNodes, info.fragments) * rules.length);
      return ctx.catalog.answer.charge(rules, info);
    },
  },
  // Both ends belong to the rule's product and go with it: a rule never outlives them.
  ConfigurationRule: {
    customisation: async (rule, _, ctx, info) =>
      ctx.catalog.answer.charge((await ctx.catalog.loaders.customisationsById.load(rule.customisationId))!, info),
    other: async (rule, _, ctx, info) =>
      ctx.catalog.answer.charge((await ctx.catalog.loaders.customisationsById.load(rule.otherCustomisationId))!, info),
  },
  PriceLine: {
    customisation: async (line, _, ctx, info) =>
      ctx.catalog.answer.charge(await byId(ctx.catalog.loaders.customisationsById, line.customisationId), info),
  },
  Step: {
    __resolveReference: (ref, ctx) => byId(ctx.catalog.loaders.stepsById, ref.id),
    // A step reached without its product (an entity reference) is priced by the rows it has.
    components: async (step, _, ctx, info) => {
      const components = await ctx.catalog.loaders.componentsByStepId.load(step.id);
      const { answer } = ctx.catalog;
      if (answer.isPaid(step)) answer.markPaid(components);
      else answer.chargeFields(selectionWeights(info.fieldNodes, info.fragments, 2)[0]! * components.length);
      return answer.charge(components, info);
    },
  },
  Component: {
    __resolveReference: (ref, ctx) => byId(ctx.catalog.loaders.componentsById, ref.id),
    customisations: async (component, _, ctx, info) => {
      const customisations = await ctx.catalog.loaders.customisationsByComponentId.load(component.id);
      const { answer } = ctx.catalog;
      if (!answer.isPaid(component))
        answer.chargeFields(selectionWeights(info.fieldNodes, info.fragments, 1)[0]! * customisations.length);
      return answer.charge(customisations, info);
    },
  },
  Customisation: {
    __resolveReference: (ref, ctx) => byId(ctx.catalog.loaders.customisationsById, ref.id),
  },
  // Scopes were checked before execution (@requiresScopes); validation and the rest are the write service's.
  Mutation: {
    createProduct: (_, a, ctx) => ctx.catalog.writes(ctx.session).createProduct(a.input),
    updateProduct: (_, a, ctx) => ctx.catalog.writes(ctx.session).updateProduct(a.id, a.input),
    deleteProduct: (_, a, ctx) => ctx.catalog.writes(ctx.session).deleteProduct(a.id, a.expectedUpdatedAt),
    upsertProduct: async (_, a, ctx) => (await ctx.catalog.writes(ctx.session).upsertProduct(a.input)).product,
    createStep: (_, a, ctx) => ctx.catalog.writes(ctx.session).createStep(a.productId, a.input),
    updateStep: (_, a, ctx) => ctx.catalog.writes(ctx.session).updateStep(a.id, a.input),
    deleteStep: (_, a, ctx) => ctx.catalog.writes(ctx.session).deleteStep(a.id, a.expectedUpdatedAt),
    createComponent: (_, a, ctx) => ctx.catalog.writes(ctx.session).createComponent(a.stepId, a.input),
    updateComponent: (_, a, ctx) => ctx.catalog.writes(ctx.session).updateComponent(a.id, a.input),
    deleteComponent: (_, a, ctx) => ctx.catalog.writes(ctx.session).deleteComponent(a.id, a.expectedUpdatedAt),
    createCustomisation: (_, a, ctx) => ctx.catalog.writes(ctx.session).createCustomisation(a.componentId, a.input),
    updateCustomisation: (_, a, ctx) => ctx.catalog.writes(ctx.session).updateCustomisation(a.id, a.input),
    deleteCustomisation: (_, a, ctx) => ctx.catalog.writes(ctx.session).deleteCustomisation(a.id, a.expectedUpdatedAt),
    reorderSteps: (_, a, ctx) =>
      ctx.catalog.writes(ctx.session).reorderSteps(a.productId, a.stepIds, a.expectedUpdatedAt),
    reorderComponents: (_, a, ctx) =>
      ctx.catalog.writes(ctx.session).reorderComponents(a.stepId, a.componentIds, a.expectedUpdatedAt),
    createRule: (_, a, ctx) => ctx.catalog.writes(ctx.session).createRule(a.productId, a.input),
    deleteRule: (_, a, ctx) => ctx.catalog.writes(ctx.session).deleteRule(a.id, a.expectedUpdatedAt),
  },
};

import { configureProduct, money, priceBreakdownParent, type Configured, type Selection } from '../catalog/index.ts';
import type { ConfigurationsContext } from './context.ts';
import type { Resolvers } from './generated/resolvers-types.ts';
import { isConfigurationId } from './ids.ts';
import type { ConfigurationRow } from './repository.ts';
import { removeConfiguration, saveConfiguration } from './service.ts';
import { NotFound } from '../../platform/errors.ts';

const byId = (id: string, ctx: ConfigurationsContext) =>
  isConfigurationId(id) ? ctx.configurations.configurationsById.load(id) : null;

/** The saved choices checked and priced against today's catalogue, once per configuration and request. */
function current(row: ConfigurationRow, ctx: ConfigurationsContext): Promise<Configured | null> {
  let evaluation = ctx.configurations.current.get(row);
  if (!evaluation) {
    const selections: Selection[] = row.selections.map((s) => ({ customisationId: s.customisationId, value: s.value }));
    evaluation = configureProduct(ctx.catalog.loaders, row.productId, selections, ctx.catalog.answer);
    ctx.configurations.current.set(row, evaluation);
  }
  return evaluation;
}

const snapshotLines = (row: ConfigurationRow) =>
  row.selections.map((s) => ({
    customisationId: s.customisationId,
    name: s.name,
    mode: s.mode,
    amount: money(s.amountCents, row.currency),
  }));

// Every value handed over is weighed against the request's answer bound first (the catalogue's budget): a
// saved configuration holds up to 1,000 choices with the customer's text, and aliases repeat it.
export const configurationResolvers: Resolvers = {
  Query: {
    configuration: (_, args, ctx) => byId(args.id, ctx),
  },
  Mutation: {
    saveConfiguration: (_, args, ctx) =>
      saveConfiguration(
        {
          db: ctx.configurations.db,
          logger: ctx.configurations.logger,
          catalog: ctx.catalog,
          session: ctx.session,
          savesPerMinute: ctx.configurations.savesPerMinute,
        },
        args.productId,
        args.selections,
      ),
    deleteConfiguration: (_, args, ctx) => {
      if (!isConfigurationId(args.id)) throw new NotFound(`No configuration with id "${args.id}".`);
      return removeConfiguration(ctx.configurations.db, ctx.configurations.logger, ctx.session, args.id);
    },
  },
  Configuration: {
    __resolveReference: (ref, ctx) => byId(ref.id, ctx),
    product: async (row, _, ctx, info) =>
      ctx.catalog.answer.charge(await ctx.catalog.loaders.productsById.load(row.productId), info),
    selections: (row, _, ctx, info) =>
      ctx.catalog.answer.charge(
        row.selections.map((s) => ({
          customisationId: s.customisationId,
          name: s.name,
          value: s.value,
          mode: s.mode,
          price: money(s.amountCents, row.currency),
        })),
        info,
      ),
    price: (row, _, ctx, info) =>
      ctx.catalog.answer.charge(
        {
          base: money(row.baseCents, row.currency),
          lines: snapshotLines(row),
          total: money(row.totalCents, row.currency),
        },
        info,
      ),
    currentPrice: async (row, _, ctx, info) => {
      const now = await current(row, ctx);
      if (!now) return null;
      return ctx.catalog.answer.charge(priceBreakdownParent(now.evaluation.price), info);
    },
    valid: async (row, _, ctx) => (await current(row, ctx))?.evaluation.valid ?? false,
    changedSince: async (row, _, ctx) => {
      const product = await ctx.catalog.loaders.productsById.load(row.productId);
      return !product || product.updatedAt > row.productUpdatedAt;
    },
  },
};

import DataLoader from 'dataloader';
import type { GraphQLResolveInfo } from 'graphql';
import type { GraphQLContext } from '../../graphql/context.ts';
import {
  configureProduct,
  money,
  priceBreakdownParent,
  type CatalogRequest,
  type Configured,
  type Selection,
} from '../catalog/index.ts';
import { isConfigurationId } from './ids.ts';
import { findConfigurationsByIds, type ConfigurationRow } from './repository.ts';
import { removeConfiguration, saveConfiguration } from './service.ts';
import type { ConfigurationDb } from './tables.ts';
import { NotFound } from '../../platform/errors.ts';
import type { Logger } from '../../platform/logger.ts';

/** The module's part of a request's context: its loader, and today's evaluation of each configuration read. */
export interface ConfigurationsRequest {
  db: ConfigurationDb;
  logger: Logger;
  savesPerMinute: number;
  configurationsById: DataLoader<string, ConfigurationRow | null>;
  current: WeakMap<ConfigurationRow, Promise<Configured | null>>;
}

export function createConfigurationsRequest(
  db: ConfigurationDb,
  logger: Logger,
  savesPerMinute: number,
): ConfigurationsRequest {
  return {
    db,
    logger,
    savesPerMinute,
    configurationsById: new DataLoader(async (ids) => {
      const rows = new Map((await findConfigurationsByIds(db, ids)).map((r) => [r.id, r]));
      return ids.map((id) => rows.get(id) ?? null);
    }),
    current: new WeakMap(),
  };
}

type Context = GraphQLContext & { catalog: CatalogRequest; configurations: ConfigurationsRequest };
type Info = GraphQLResolveInfo;

const byId = (id: string, ctx: Context) =>
  isConfigurationId(id) ? ctx.configurations.configurationsById.load(id) : null;

/** The saved choices checked and priced against today's catalogue, once per configuration and request. */
function current(row: ConfigurationRow, ctx: Context): Promise<Configured | null> {
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
export const configurationResolvers = {
  Query: {
    configuration: (_: unknown, args: { id: string }, ctx: Context) => byId(args.id, ctx),
  },
  Mutation: {
    saveConfiguration: (_: unknown, args: { productId: string; selections: Selection[] }, ctx: Context) =>
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
    deleteConfiguration: (_: unknown, args: { id: string }, ctx: Context) => {
      if (!isConfigurationId(args.id)) throw new NotFound(`No configuration with id "${args.id}".`);
      return removeConfiguration(ctx.configurations.db, ctx.configurations.logger, ctx.session, args.id);
    },
  },
  Configuration: {
    __resolveReference: (ref: { id: string }, ctx: Context) => byId(ref.id, ctx),
    product: async (row: ConfigurationRow, _: unknown, ctx: Context, info: Info) =>
      ctx.catalog.answer.charge(await ctx.catalog.loaders.productsById.load(row.productId), info),
    selections: (row: ConfigurationRow, _: unknown, ctx: Context, info: Info) =>
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
    price: (row: ConfigurationRow, _: unknown, ctx: Context, info: Info) =>
      ctx.catalog.answer.charge(
        {
          base: money(row.baseCents, row.currency),
          lines: snapshotLines(row),
          total: money(row.totalCents, row.currency),
        },
        info,
      ),
    currentPrice: async (row: ConfigurationRow, _: unknown, ctx: Context, info: Info) => {
      const now = await current(row, ctx);
      if (!now) return null;
      return ctx.catalog.answer.charge(priceBreakdownParent(now.evaluation.price), info);
    },
    valid: async (row: ConfigurationRow, _: unknown, ctx: Context) =>
      (await current(row, ctx))?.evaluation.valid ?? false,
    changedSince: async (row: ConfigurationRow, _: unknown, ctx: Context) => {
      const product = await ctx.catalog.loaders.productsById.load(row.productId);
      return !product || product.updatedAt > row.productUpdatedAt;
    },
  },
};

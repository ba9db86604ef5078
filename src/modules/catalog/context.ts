import type { Config } from '../../config.ts';
import type { GraphQLContext } from '../../graphql/context.ts';
import type { Logger } from '../../platform/logger.ts';
import type { Session } from '../../platform/session.ts';
import { AnswerBudget } from './answer-size.ts';
import { createCatalogLoaders, type CatalogLoaders } from './loaders.ts';
import { getProductPage, type ProductPageArgs } from './service.ts';
import type { CatalogDb } from './tables.ts';
import type { ProductTotal } from './total.ts';
import * as children from './writes/children.ts';
import * as products from './writes/products.ts';
import { createRule, deleteRule } from './writes/rules.ts';
import type { WriteContext } from './writes/transaction.ts';

// Every mutation's write, by its mutation's name.
const WRITES = { ...products, ...children, createRule, deleteRule };
type Writes = typeof WRITES;
type Bound = {
  [K in keyof Writes]: Writes[K] extends (ctx: WriteContext, ...args: infer A) => infer R ? (...args: A) => R : never;
};

/** The catalog's part of a request's GraphQL context: loaders are new for every request. */
export interface CatalogRequest {
  loaders: CatalogLoaders;
  /** What this request's answer may still hold (GRAPHQL_MAX_ANSWER_FIELDS and GRAPHQL_MAX_ANSWER_BYTES). */
  answer: AnswerBudget;
  productPage(args: ProductPageArgs): ReturnType<typeof getProductPage>;
  /** The writes, as this session; each forgets what the request's loaders had read. */
  writes(session: Session): Bound;
}

export type CatalogContext = GraphQLContext & { catalog: CatalogRequest };

/** What the catalogue reads: its own settings, and the GraphQL page and answer bounds. */
export type CatalogSettings = Config['catalog'] &
  Pick<Config['graphql'], 'maxPageSize' | 'maxAnswerFields' | 'maxAnswerBytes'>;

export function createCatalogRequest(
  db: CatalogDb,
  config: CatalogSettings,
  logger: Logger,
  totals: ProductTotal,
): CatalogRequest {
  const loaders = createCatalogLoaders(db);
  const forget = () => Object.values(loaders).forEach((loader) => loader.clearAll());
  return {
    loaders,
    answer: new AnswerBudget({ fields: config.maxAnswerFields, bytes: config.maxAnswerBytes }),
    productPage: (args) => getProductPage(db, loaders, totals, args, config.maxPageSize),
    writes(session) {
      const ctx: WriteContext = {
        db,
        logger,
        limits: config.writeLimits,
        currency: config.currency,
        actor: { userId: session.user.id, tokenId: session.tokenId, via: 'graphql' },
      };
      const bound = Object.fromEntries(
        Object.entries(WRITES).map(([name, write]) => [
          name,
          (...args: unknown[]) => (write as (...a: unknown[]) => Promise<unknown>)(ctx, ...args).finally(forget),
        ]),
      );
      return bound as Bound;
    },
  };
}

import { fileURLToPath } from 'node:url';
import type { Module } from '../module.ts';
import { createCatalogRequest, type CatalogSettings } from './context.ts';
import { catalogResolvers } from './resolvers.ts';
import type { CatalogTables } from './tables.ts';
import { createProductTotal } from './total.ts';

export type { CatalogDb, CatalogTables } from './tables.ts';
// What the configurations module needs of the catalogue: today's tree, checked and priced.
export type { CatalogRequest } from './context.ts';
export type { ProductParent } from './parents.ts';
// What a refusal's extensions weigh: an answer of errors is bounded like any other.
export { jsonBytes } from './answer-weight.ts';
export {
  configureProduct,
  money,
  priceBreakdownParent,
  type Configured,
  type MoneyParent,
  type PriceBreakdownParent,
  type PriceLineParent,
} from './configure/service.ts';
export type { PriceMode, Selection } from './configure/engine.ts';
// The command line's, the seeds' and the tests' (bulk inserts, export and import, the engine alone): tools.ts.

export const CATALOG_READ = 'catalog:read';
export const CATALOG_WRITE = 'catalog:write';
/** Sent by the database (migration 0019's triggers) once per statement that changes the catalogue, naming what changed. */
export const CATALOG_CHANGED = 'catalog_changed';
export { changedTags as catalogChangedTags } from './changes.ts';

export const catalogModule = {
  name: 'catalog',
  abilities: [
    { name: CATALOG_READ, description: 'Read products and their trees (every query).' },
    {
      name: CATALOG_WRITE,
      description: 'Create, change and delete products and their trees (every mutation).',
      adminOnly: true,
    },
  ],
  graphql: {
    schemaDir: fileURLToPath(new URL('../../../schema/catalog', import.meta.url)),
    resolvers: catalogResolvers,
    // Which fields the response cache may share: @sharedCache in the SDL (configure answers from the
    // catalogue and its arguments alone, and a change to its product drops it: changes.ts).
    // How `npm run codegen` types the resolvers: paths from ./generated/.
    codegen: {
      contextType: '../context.ts#CatalogContext',
      mappers: {
        Product: '../parents.ts#ProductParent',
        Step: '../parents.ts#StepParent',
        Component: '../parents.ts#ComponentParent',
        Customisation: '../parents.ts#CustomisationParent',
        ProductPaginator: '../service.ts#ProductPage',
        ConfigurationRule: '../parents.ts#ConfigurationRuleParent',
        ConfigurationCheck: '../configure/service.ts#ConfigurationCheckParent',
        PriceBreakdown: '../configure/service.ts#PriceBreakdownParent',
        PriceLine: '../configure/service.ts#PriceLineParent',
        Money: '../configure/service.ts#MoneyParent',
      },
    },
  },
  settings: ({ catalog, graphql }) => ({
    ...catalog,
    maxPageSize: graphql.maxPageSize,
    maxAnswerFields: graphql.maxAnswerFields,
    maxAnswerBytes: graphql.maxAnswerBytes,
  }),
  create: ({ db, config, logger, changes }) => {
    const totals = createProductTotal(changes, CATALOG_CHANGED);
    return { graphqlContext: () => ({ catalog: createCatalogRequest(db, config, logger, totals) }) };
  },
} satisfies Module<CatalogTables, CatalogSettings>;

import { fileURLToPath } from 'node:url';
import type { Module } from '../module.ts';
import { createCatalogRequest, type CatalogSettings } from './context.ts';
import { catalogResolvers } from './resolvers.ts';
import type { CatalogTables } from './tables.ts';
import { createProductTotal } from './total.ts';

export type { CatalogDb, CatalogTables } from './tables.ts';
// What the configurations module needs of the catalogue: today's tree, checked and priced.
export type { CatalogRequest } from './context.ts';
export type { ProductParent } from './mappers.ts';
// What a refusal's extensions weigh: an answer of errors is bounded like any other.
export { jsonBytes } from './answer-weight.ts';
export { configureProduct, money, priceBreakdownParent, type Configured } from './configure/service.ts';
export type { Selection } from './configure/engine.ts';
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
    // The catalogue reads the same for every token; a field added later stays uncached until listed here.
    publicFields: {
      // configure answers from the catalogue alone (and its arguments, part of the key); a change to
      // its product, rules included, drops it (changes.ts).
      Query: ['products', 'product', 'productBySku', 'configure'],
      ProductPaginator: ['data', 'paginatorInfo'],
      PaginatorInfo: [
        'count',
        'currentPage',
        'firstItem',
        'hasMorePages',
        'lastItem',
        'lastPage',
        'perPage',
        'total',
        'endCursor',
      ],
      Product: ['id', 'name', 'sku', 'steps', 'createdAt', 'updatedAt', 'basePrice', 'currency', 'rules'],
      Step: ['id', 'name', 'order', 'components', 'createdAt', 'updatedAt', 'required'],
      Component: [
        'id',
        'name',
        'position',
        'customisations',
        'createdAt',
        'updatedAt',
        'minSelections',
        'maxSelections',
      ],
      Customisation: ['id', 'name', 'type', 'price', 'createdAt', 'updatedAt', 'priceMode'],
      ConfigurationRule: ['id', 'kind', 'customisation', 'other', 'message'],
      ConfigurationCheck: ['product', 'valid', 'violations', 'price'],
      Violation: ['code', 'message', 'stepId', 'componentId', 'customisationId', 'otherCustomisationId'],
      PriceBreakdown: ['base', 'lines', 'total'],
      PriceLine: ['customisationId', 'name', 'mode', 'amount', 'customisation'],
      Money: ['amount', 'currency'],
    },
    // How `npm run codegen` types the resolvers: paths from ./generated/.
    codegen: {
      contextType: '../context.ts#CatalogContext',
      mappers: {
        Product: '../mappers.ts#ProductParent',
        Step: '../mappers.ts#StepParent',
        Component: '../mappers.ts#ComponentParent',
        Customisation: '../mappers.ts#CustomisationParent',
        ProductPaginator: '../service.ts#ProductPage',
        ConfigurationRule: '../mappers.ts#ConfigurationRuleParent',
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

import { fileURLToPath } from 'node:url';
import type { Config } from '../../config.ts';
import type { GraphQLModule } from '../../graphql/context.ts';
import { catalogModule } from '../catalog/index.ts';
import type { Module } from '../module.ts';
import { createConfigurationsRequest } from './context.ts';
import { configurationResolvers } from './resolvers.ts';
import type { ConfigurationTables } from './tables.ts';

export type { ConfigurationTables } from './tables.ts';
export { deleteConfigurationsOlderThan } from './repository.ts';

export const CONFIGURATIONS_WRITE = 'configurations:write';

const graphql: GraphQLModule = {
  schemaDir: fileURLToPath(new URL('../../../schema/configurations', import.meta.url)),
  resolvers: configurationResolvers,
  // Nothing is shared by the response cache: a saved configuration is not catalogue data, and its deletion
  // notifies no other instance. Typed with the catalogue's SDL, which its own returns (Money, Product).
  codegen: {
    contextType: '../context.ts#ConfigurationsContext',
    uses: [catalogModule.graphql.schemaDir],
    mappers: {
      Configuration: '../repository.ts#ConfigurationRow',
      Product: '../../catalog/index.ts#ProductParent',
      PriceBreakdown: '../../catalog/index.ts#PriceBreakdownParent',
      PriceLine: '../../catalog/index.ts#PriceLineParent',
      Money: '../../catalog/index.ts#MoneyParent',
    },
  },
};

/**
 * Saved configurations: a customer's checked and priced selection, kept for a cart, a quote or a link.
 * Its own module (a future subgraph of its own): it reaches the catalogue only through catalog/index.ts.
 */
export const configurationsModule = {
  name: 'configurations',
  abilities: [
    { name: CONFIGURATIONS_WRITE, description: 'Save configurations (saveConfiguration; with catalog:read).' },
  ],
  // No field is @sharedCache: a saved configuration is not catalogue data, and its deletion
  // notifies no other instance.
  graphql,
  settings: (config) => config.configurations,
  create: ({ db, config, logger }) => ({
    graphqlContext: () => ({ configurations: createConfigurationsRequest(db, logger, config.savesPerMinute) }),
  }),
} satisfies Module<ConfigurationTables, Config['configurations']>;

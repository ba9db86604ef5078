import { fileURLToPath } from 'node:url';
import type { Config } from '../../config.ts';
import type { GraphQLModule } from '../../graphql/context.ts';
import type { Module } from '../module.ts';
import { configurationResolvers, createConfigurationsRequest } from './resolvers.ts';
import type { ConfigurationTables } from './tables.ts';

export type { ConfigurationTables } from './tables.ts';
export { deleteConfigurationsOlderThan } from './repository.ts';

export const CONFIGURATIONS_WRITE = 'configurations:write';

/**
 * Saved configurations: a customer's checked and priced selection, kept for a cart, a quote or a link.
 * Its own module (a future subgraph of its own): it reaches the catalogue only through catalog/index.ts.
 */
export const configurationsModule = {
  name: 'configurations',
  abilities: [
    { name: CONFIGURATIONS_WRITE, description: 'Save configurations (saveConfiguration; with catalog:read).' },
  ],
  graphql: <GraphQLModule>{
    schemaDir: fileURLToPath(new URL('../../../schema/configurations', import.meta.url)),
    resolvers: configurationResolvers,
    // No field is @sharedCache: a saved configuration is not catalogue data, and its deletion
    // notifies no other instance. Untyped by codegen: its SDL uses the catalogue's types (Money, Product).
  },
  settings: (config) => config.configurations,
  create: ({ db, config, logger }) => ({
    graphqlContext: () => ({ configurations: createConfigurationsRequest(db, logger, config.savesPerMinute) }),
  }),
} satisfies Module<ConfigurationTables, Config['configurations']>;

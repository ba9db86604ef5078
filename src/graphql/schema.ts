import { fileURLToPath } from 'node:url';
import { buildSubgraphSchema } from '@apollo/subgraph';
import { loadFilesSync } from '@graphql-tools/load-files';
import { mergeResolvers, mergeTypeDefs } from '@graphql-tools/merge';
import type { DocumentNode, GraphQLSchema } from 'graphql';
import { catalogResolvers } from '../modules/catalog/resolvers.ts';

/** The SDL files are the source of truth; this is the one file that lists the modules. */
export const SCHEMA_DIR = fileURLToPath(new URL('../../schema', import.meta.url));

export function loadTypeDefs(): DocumentNode {
  return mergeTypeDefs(loadFilesSync(SCHEMA_DIR, { extensions: ['graphql'], recursive: true }));
}

export const resolvers = [catalogResolvers];

// @apollo/subgraph's module type, named without reaching into its dist folder.
type SubgraphModule = Extract<Extract<Parameters<typeof buildSubgraphSchema>[0], readonly unknown[]>[number], { typeDefs: unknown }>;

/**
 * A federation v2 subgraph (schema/federation.graphql links the spec): besides the
 * public API it answers `_service { sdl }` and `_entities`, whose references resolve
 * through each entity's `__resolveReference`, i.e. the request's DataLoaders.
 */
export function buildSchema(): GraphQLSchema {
  return buildSubgraphSchema([
    { typeDefs: loadTypeDefs(), resolvers: mergeResolvers(resolvers) as SubgraphModule['resolvers'] },
  ]);
}

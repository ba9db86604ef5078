import { fileURLToPath } from 'node:url';
import { buildSubgraphSchema } from '@apollo/subgraph';
import { loadFilesSync } from '@graphql-tools/load-files';
import { mergeResolvers, mergeTypeDefs } from '@graphql-tools/merge';
import type { DocumentNode, GraphQLSchema } from 'graphql';
import type { GraphQLModule } from './context.ts';
import { scalarResolvers } from './scalars.ts';

export const SCHEMA_DIR = fileURLToPath(new URL('../../schema', import.meta.url));

export function loadTypeDefs(schemaDirs: readonly string[]): DocumentNode {
  const load = (dir: string, recursive: boolean) => loadFilesSync(dir, { extensions: ['graphql'], recursive });
  return mergeTypeDefs([...load(SCHEMA_DIR, false), ...schemaDirs.flatMap((dir) => load(dir, true))]);
}

// @apollo/subgraph's module type, named without reaching into its dist folder.
type SubgraphModule = Extract<
  Extract<Parameters<typeof buildSubgraphSchema>[0], readonly unknown[]>[number],
  { typeDefs: unknown }
>;

/** A federation v2 subgraph: `_entities` resolves through each entity's `__resolveReference`, i.e. the request's loaders. */
export function buildSchema(modules: readonly GraphQLModule[]): GraphQLSchema {
  return buildSubgraphSchema([
    {
      typeDefs: loadTypeDefs(modules.map((m) => m.schemaDir)),
      resolvers: mergeResolvers([scalarResolvers, ...modules.map((m) => m.resolvers)] as Parameters<
        typeof mergeResolvers
      >[0]) as SubgraphModule['resolvers'],
    },
  ]);
}

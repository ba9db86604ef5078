import { fileURLToPath } from 'node:url';
import { loadFilesSync } from '@graphql-tools/load-files';
import { mergeTypeDefs } from '@graphql-tools/merge';
import { makeExecutableSchema } from '@graphql-tools/schema';
import type { GraphQLSchema } from 'graphql';
import { catalogResolvers } from '../modules/catalog/resolvers.ts';

/** The SDL files are the source of truth; this is the one file that lists the modules. */
export const SCHEMA_DIR = fileURLToPath(new URL('../../schema', import.meta.url));

export function loadTypeDefs() {
  return mergeTypeDefs(loadFilesSync(SCHEMA_DIR, { extensions: ['graphql'], recursive: true }));
}

export const resolvers = [catalogResolvers];

export function buildSchema(): GraphQLSchema {
  return makeExecutableSchema({ typeDefs: loadTypeDefs(), resolvers });
}

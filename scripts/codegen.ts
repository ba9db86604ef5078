// Generates TypeScript types for the resolvers from schema/ with GraphQL Code
// Generator, so a resolver that drifts from the SDL fails `tsc`.
//   npm run codegen    writes src/graphql/generated/resolvers-types.ts
// The generation is a function so a test can regenerate and compare with the
// committed file.
import fs from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { codegen } from '@graphql-codegen/core';
import * as typescriptPlugin from '@graphql-codegen/typescript';
import * as typescriptResolversPlugin from '@graphql-codegen/typescript-resolvers';
import { loadTypeDefs } from '../src/graphql/schema.ts';

export const RESOLVER_TYPES_FILE = fileURLToPath(
  new URL('../src/graphql/generated/resolvers-types.ts', import.meta.url),
);

export async function generateResolverTypes(): Promise<string> {
  // The SDL of schema/ alone: with `federation: true` the plugin reads @key
  // and types each entity's `__resolveReference`; _entities and _service are
  // @apollo/subgraph's to resolve, not ours.
  return codegen({
    filename: RESOLVER_TYPES_FILE,
    schema: loadTypeDefs(),
    documents: [],
    plugins: [{ typescript: {} }, { typescriptResolvers: {} }],
    pluginMap: { typescript: typescriptPlugin, typescriptResolvers: typescriptResolversPlugin },
    config: {
      useTypeImports: true,
      federation: true,
      contextType: '../context.ts#GraphQLContext',
      mappers: {
        Product: '../../modules/catalog/mappers.ts#ProductParent',
        Step: '../../modules/catalog/mappers.ts#StepParent',
        Component: '../../modules/catalog/mappers.ts#ComponentParent',
        Customisation: '../../modules/catalog/mappers.ts#CustomisationParent',
        ProductPaginator: '../../modules/catalog/service.ts#ProductPage',
      },
    },
  });
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  fs.mkdirSync(new URL('../src/graphql/generated/', import.meta.url), { recursive: true });
  fs.writeFileSync(RESOLVER_TYPES_FILE, await generateResolverTypes());
  console.log('wrote src/graphql/generated/resolvers-types.ts');
}

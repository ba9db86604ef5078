// Generates TypeScript types for each module's resolvers from its SDL with
// GraphQL Code Generator, so a resolver that drifts from the SDL fails `tsc`.
//   npm run codegen    writes src/modules/<module>/generated/resolvers-types.ts
// The generation is a function so a test can regenerate and compare with the
// committed files.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { codegen } from '@graphql-codegen/core';
import * as typescriptPlugin from '@graphql-codegen/typescript';
import * as typescriptResolversPlugin from '@graphql-codegen/typescript-resolvers';
import { loadTypeDefs } from '../src/graphql/schema.ts';
import { MODULES } from '../src/modules/index.ts';

const MODULES_DIR = fileURLToPath(new URL('../src/modules/', import.meta.url));

export const resolverTypesFile = (moduleName: string) =>
  path.join(MODULES_DIR, moduleName, 'generated/resolvers-types.ts');

/** The modules whose resolvers are typed by generated code. */
export const typedModules = () =>
  Object.values(MODULES).flatMap((m) =>
    'graphql' in m && m.graphql.codegen ? [{ name: m.name, graphql: m.graphql }] : [],
  );

export async function generateResolverTypes(moduleName: string): Promise<string> {
  const module = typedModules().find((m) => m.name === moduleName);
  if (!module) throw new Error(`no module ${moduleName} with resolvers to type`);
  // The shared SDL and the module's alone: with `federation: true` the plugin
  // reads @key and types each entity's `__resolveReference`; _entities and
  // _service are @apollo/subgraph's to resolve, not ours.
  return codegen({
    filename: resolverTypesFile(moduleName),
    schema: loadTypeDefs([module.graphql.schemaDir]),
    documents: [],
    plugins: [{ typescript: {} }, { typescriptResolvers: {} }],
    pluginMap: { typescript: typescriptPlugin, typescriptResolvers: typescriptResolversPlugin },
    config: {
      useTypeImports: true,
      federation: true,
      // Resolvers may hand DateTime a Date, an ISO string or epoch milliseconds (graphql-scalars serializes each).
      scalars: { DateTime: { input: 'Date', output: 'Date | string | number' } },
      ...module.graphql.codegen,
    },
  });
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  for (const { name } of typedModules()) {
    const file = resolverTypesFile(name);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, await generateResolverTypes(name));
    console.log(`wrote ${path.relative(process.cwd(), file)}`);
  }
}

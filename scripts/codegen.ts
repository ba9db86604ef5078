// Generates TypeScript types for each module's resolvers from its SDL with
// GraphQL Code Generator, so a resolver that drifts from the SDL fails `tsc`.
//   npm run codegen    writes src/modules/<module>/generated/resolvers-types.ts, and
//                      generated/enums.ts for a module whose SDL declares enums
// The generation is a function so a test can regenerate and compare with the
// committed files.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { codegen } from '@graphql-codegen/core';
import { loadFilesSync } from '@graphql-tools/load-files';
import { Kind, type DocumentNode } from 'graphql';
import * as typescriptPlugin from '@graphql-codegen/typescript';
import * as typescriptResolversPlugin from '@graphql-codegen/typescript-resolvers';
import type { GraphQLModule } from '../src/graphql/context.ts';
import { loadTypeDefs } from '../src/graphql/schema.ts';
import { MODULES } from '../src/modules/index.ts';

const MODULES_DIR = fileURLToPath(new URL('../src/modules/', import.meta.url));

export const resolverTypesFile = (moduleName: string) =>
  path.join(MODULES_DIR, moduleName, 'generated/resolvers-types.ts');
export const enumTypesFile = (moduleName: string) => path.join(MODULES_DIR, moduleName, 'generated/enums.ts');

/** The modules whose resolvers are typed by generated code. */
export const typedModules = () =>
  Object.values(MODULES).flatMap(({ name, graphql }: { name: string; graphql?: GraphQLModule }) =>
    graphql?.codegen ? [{ name, graphql, codegen: graphql.codegen }] : [],
  );

export async function generateResolverTypes(moduleName: string): Promise<string> {
  const module = typedModules().find((m) => m.name === moduleName);
  if (!module) throw new Error(`no module ${moduleName} with resolvers to type`);
  // The shared SDL, the SDL the module builds on (its `uses`) and its own: with
  // `federation: true` the plugin reads @key and types each entity's
  // `__resolveReference`; _entities and _service are @apollo/subgraph's to resolve, not ours.
  const { uses = [], ...config } = module.codegen;
  return codegen({
    filename: resolverTypesFile(moduleName),
    schema: loadTypeDefs([...uses, module.graphql.schemaDir]),
    documents: [],
    plugins: [{ typescript: {} }, { typescriptResolvers: {} }],
    pluginMap: { typescript: typescriptPlugin, typescriptResolvers: typescriptResolversPlugin },
    config: {
      useTypeImports: true,
      federation: true,
      // Enums as unions of their values: the one spelling of 'ADD' | 'REPLACE_BASE' that tables, the
      // repository and the rules engine import, so a value added to the SDL reaches them all.
      enumsAsTypes: true,
      // Resolvers may hand DateTime a Date, an ISO string or epoch milliseconds (graphql-scalars serializes each).
      scalars: { DateTime: { input: 'Date', output: 'Date | string | number' } },
      ...config,
    },
  });
}

/**
 * The enums the module's own SDL declares, as unions of their values, in a file that imports nothing:
 * tables, parents and the rules engine take them from there, below the resolver types that import
 * those files (no import cycle). Null when the module declares no enum.
 */
export async function generateEnumTypes(moduleName: string): Promise<string | null> {
  const module = typedModules().find((m) => m.name === moduleName);
  if (!module) throw new Error(`no module ${moduleName} with resolvers to type`);
  const own = loadFilesSync<DocumentNode>(module.graphql.schemaDir, { extensions: ['graphql'], recursive: true });
  if (!own.some((doc) => doc.definitions.some((d) => d.kind === Kind.ENUM_TYPE_DEFINITION))) return null;
  const text = await codegen({
    filename: enumTypesFile(moduleName),
    schema: loadTypeDefs([...(module.codegen.uses ?? []), module.graphql.schemaDir]),
    documents: [],
    plugins: [{ typescript: {} }],
    pluginMap: { typescript: typescriptPlugin },
    config: { onlyEnums: true, enumsAsTypes: true },
  });
  return text;
}

/** Every file codegen writes, with its text. */
export async function generatedFiles(): Promise<{ file: string; text: string }[]> {
  const files = [];
  for (const { name } of typedModules()) {
    files.push({ file: resolverTypesFile(name), text: await generateResolverTypes(name) });
    const enums = await generateEnumTypes(name);
    if (enums !== null) files.push({ file: enumTypesFile(name), text: enums });
  }
  return files;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  for (const { file, text } of await generatedFiles()) {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, text);
    console.log(`wrote ${path.relative(process.cwd(), file)}`);
  }
}

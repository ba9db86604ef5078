import { authModule, type AuthTables } from './auth/index.ts';
import { catalogModule, type CatalogTables } from './catalog/index.ts';
import { configurationsModule, type ConfigurationTables } from './configurations/index.ts';
import { documentsModule, type DocumentTables } from './documents/index.ts';
import type { TenantTables } from './tenants/index.ts';
import { buildSchema } from '../graphql/schema.ts';
import type { Ability } from '../platform/session.ts';
import type { Config } from '../config.ts';
import type { Module, ModuleDeps } from './module.ts';

export { TOKENS_CHANGED } from './auth/index.ts';
export { CATALOG_CHANGED, catalogChangedTags } from './catalog/index.ts';
export { DOCUMENTS_CHANGED, GRAPHQL_ANY, type TrustedDocumentStore } from './documents/index.ts';

/** Every module of the service: the one list app.ts builds from. */
export const MODULES = {
  auth: authModule,
  catalog: catalogModule,
  configurations: configurationsModule,
  documents: documentsModule,
};

export type Database = AuthTables & CatalogTables & ConfigurationTables & DocumentTables & TenantTables;

export type Modules = { [K in keyof typeof MODULES]: ReturnType<(typeof MODULES)[K]['create']> };

export const ABILITIES: readonly Ability[] = Object.values(MODULES).flatMap((m) =>
  'abilities' in m ? m.abilities : [],
);

/** Each module is given its own settings, not the whole configuration. */
export function createModules({ config, ...deps }: Omit<ModuleDeps<Database, Config>, 'abilities'>): Modules {
  const create = (module: Module<Database, unknown>) =>
    module.create({ ...deps, abilities: ABILITIES, config: module.settings(config) });
  return Object.fromEntries(Object.entries(MODULES).map(([name, module]) => [name, create(module)])) as Modules;
}

export const GRAPHQL_MODULES = Object.values(MODULES).flatMap((m) => ('graphql' in m && m.graphql ? [m.graphql] : []));

export const serviceSchema = () => buildSchema(GRAPHQL_MODULES);

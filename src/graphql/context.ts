import type { Config } from '../config.ts';
import type { Db } from '../platform/db.ts';
import type { CatalogLoaders } from '../modules/catalog/loaders.ts';
import type { Session } from '../modules/auth/service.ts';

/** What the HTTP dispatcher hands Yoga for each request. */
export interface ServerContext {
  session: Session | null;
  ip: string;
}

/** The context every resolver sees; loaders are new for every request. */
export interface GraphQLContext extends ServerContext {
  config: Config;
  db: Db;
  loaders: { catalog: CatalogLoaders };
}

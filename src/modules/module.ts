import type { Kysely } from 'kysely';
import type { Registry } from 'prom-client';
import type { Config } from '../config.ts';
import type { GraphQLModule } from '../graphql/context.ts';
import type { Route } from '../http/router.ts';
import type { Logger } from '../platform/logger.ts';
import type { ChangeFeed } from '../platform/notifications.ts';
import type { Ability, Authenticate } from '../platform/session.ts';

export interface ModuleDeps<Tables, Settings> {
  db: Kysely<Tables>;
  /** This module's settings only: what its `settings` picks out of the configuration. */
  config: Settings;
  logger: Logger;
  registry: Registry;
  /** Every ability any module declares: what a token may be granted. */
  abilities: readonly Ability[];
  /** The database's change notifications, when this process listens for them. */
  changes?: ChangeFeed | undefined;
}

export interface ModuleParts {
  routes?: readonly Route[];
  /** Its part of every GraphQL request's context (its loaders), built per request. */
  graphqlContext?: () => object;
  /** How requests are authenticated; exactly one module provides it. */
  authenticate?: Authenticate;
}

export interface Module<Tables, Settings, Parts extends ModuleParts = ModuleParts> {
  name: string;
  graphql?: GraphQLModule;
  /** The token abilities this module's operations require (`@requiresScopes` in its SDL). */
  abilities?: readonly Ability[];
  /** The settings this module reads, picked out of the whole configuration. */
  settings(config: Config): Settings;
  create(deps: ModuleDeps<Tables, Settings>): Parts;
}

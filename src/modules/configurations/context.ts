import DataLoader from 'dataloader';
import type { GraphQLContext } from '../../graphql/context.ts';
import type { CatalogRequest, Configured } from '../catalog/index.ts';
import { findConfigurationsByIds, type ConfigurationRow } from './repository.ts';
import type { ConfigurationDb } from './tables.ts';
import type { Logger } from '../../platform/logger.ts';

/** The module's part of a request's context: its loader, and today's evaluation of each configuration read. */
export interface ConfigurationsRequest {
  db: ConfigurationDb;
  logger: Logger;
  savesPerMinute: number;
  configurationsById: DataLoader<string, ConfigurationRow | null>;
  current: WeakMap<ConfigurationRow, Promise<Configured | null>>;
}

export function createConfigurationsRequest(
  db: ConfigurationDb,
  logger: Logger,
  savesPerMinute: number,
): ConfigurationsRequest {
  return {
    db,
    logger,
    savesPerMinute,
    configurationsById: new DataLoader(async (ids) => {
      const rows = new Map((await findConfigurationsByIds(db, ids)).map((r) => [r.id, r]));
      return ids.map((id) => rows.get(id) ?? null);
    }),
    current: new WeakMap(),
  };
}

export type ConfigurationsContext = GraphQLContext & { catalog: CatalogRequest; configurations: ConfigurationsRequest };

import { Conflict, NotFound, ValidationFailed } from '../../../platform/errors.ts';
import { parseRowId } from '../../../platform/ids.ts';
import type { Logger } from '../../../platform/logger.ts';
import { findComponentsByIds, findCustomisationsByIds, findProductsByIds, findStepsByIds } from '../repository.ts';
import type { CatalogDb } from '../tables.ts';
import { DuplicateKey, lockProductOf, type Owned, type ProductVersion } from './repository.ts';
import type { WriteLimits } from './inputs.ts';

// What every catalogue write shares: one transaction, the product's lock and version check, the log line.

/** Who writes: logged with every write. The CLI writes as nobody's token. */
export interface Actor {
  userId: string | null;
  tokenId: string | null;
  via: 'graphql' | 'cli';
}

/** A granular write's input: its own fields and the product version it was read at. */
export type Versioned<T> = T & { expectedUpdatedAt?: Date | null };
/** An update's fields: one left out or null keeps its value (validation.ts checkChanges skips both). */
export type Changes<T> = { [K in keyof T]?: T[K] | null };

const TAKEN: Record<DuplicateKey['key'], string> = {
  sku: 'The sku has already been taken.',
  order: 'The order has already been taken.',
};

const NOUN: Record<Owned, string> = {
  product: 'product',
  step: 'step',
  component: 'component',
  customisation: 'customisation',
  rule: 'rule',
};

/** A dry run rolls its transaction back by throwing its result. */
class DryRun<T> extends Error {
  constructor(readonly result: T) {
    super('dry run');
  }
}

export interface WriteContext {
  db: CatalogDb;
  logger: Logger;
  limits: WriteLimits;
  actor: Actor;
  /** ISO 4217 code of products written without one (CATALOG_CURRENCY); EUR when not given. */
  currency?: string;
}

/**
 * Runs one write in one transaction and logs it. `keys` says at which input path a unique key the
 * database refused belongs.
 */
export async function transact<T>(
  ctx: WriteContext,
  operation: string,
  keys: Partial<Record<DuplicateKey['key'], string>>,
  run: (trx: CatalogDb) => Promise<{ result: T; logged: Record<string, unknown> }>,
  options: { dryRun?: boolean } = {},
): Promise<T> {
  let done: { result: T; logged: Record<string, unknown> };
  try {
    done = await ctx.db.transaction().execute(async (trx) => {
      const outcome = await run(trx);
      if (options.dryRun) throw new DryRun(outcome);
      return outcome;
    });
  } catch (err) {
    if (err instanceof DryRun) return (err as DryRun<typeof done>).result.result;
    if (err instanceof DuplicateKey && keys[err.key])
      throw new ValidationFailed({ [keys[err.key]!]: [TAKEN[err.key]] });
    throw err;
  }
  const { userId, tokenId, via } = ctx.actor;
  ctx.logger.info({ userId, tokenId, via, operation, ...done.logged }, 'catalog write');
  return done.result;
}

/** The product owning `id` (of `kind`), locked, and no newer than `expected` when that is given. */
export async function lockVersion(
  trx: CatalogDb,
  kind: Owned,
  rawId: string,
  expected: Date | null | undefined,
): Promise<ProductVersion & { target: string }> {
  const id = parseRowId(rawId);
  const version = id === null ? undefined : await lockProductOf(trx, kind, id);
  if (!version || id === null) throw new NotFound(`No ${NOUN[kind]} with id ${JSON.stringify(rawId.slice(0, 40))}.`);
  assertNotNewer(version, expected);
  return { ...version, target: id };
}

export function assertNotNewer(version: ProductVersion, expected: Date | null | undefined): void {
  if (expected && expected.getTime() < version.updatedAt.getTime()) {
    throw new Conflict(
      `The product was changed at ${version.updatedAt.toISOString()}, after expectedUpdatedAt (${expected.toISOString()}). Read it again and retry.`,
      version.updatedAt,
    );
  }
}

/** The rows as reads shape them, from inside the transaction: timestamps include this write's. */
export const readBack = {
  product: async (trx: CatalogDb, id: string) => (await findProductsByIds(trx, [id]))[0]!,
  step: async (trx: CatalogDb, id: string) => (await findStepsByIds(trx, [id]))[0]!,
  component: async (trx: CatalogDb, id: string) => (await findComponentsByIds(trx, [id]))[0]!,
  customisation: async (trx: CatalogDb, id: string) => (await findCustomisationsByIds(trx, [id]))[0]!,
};

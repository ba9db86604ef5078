import { Conflict, NotFound, ValidationFailed } from '../../../platform/errors.ts';
import { parseRowId } from '../../../platform/ids.ts';
import type { Logger } from '../../../platform/logger.ts';
import { findComponentsByIds, findCustomisationsByIds, findProductsByIds, findStepsByIds } from '../repository.ts';
import type { ProductRow } from '../repository.ts';
import type { CatalogDb } from '../tables.ts';
import { isEmptyPlan, isEmptyRulePlan, planRules, planUpsert, type RulePlan } from './upsert-plan.ts';
import * as writes from './repository.ts';
import { DuplicateKey, type Owned, type ProductVersion } from './repository.ts';
import { checkProduct, type ProductInput, type ProductValues, type WriteLimits } from './validation.ts';

/** Who writes: logged with every write. The CLI writes as nobody's token. */
export interface Actor {
  userId: string | null;
  tokenId: string | null;
  via: 'graphql' | 'cli';
}

export type UpsertOutcome = 'created' | 'updated' | 'unchanged';

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

const productFields = (values: ProductValues) => ({
  name: values.name,
  sku: values.sku,
  basePrice: values.basePrice,
  currency: values.currency,
});

async function applyRules(trx: CatalogDb, plan: RulePlan): Promise<void> {
  await writes.deleteRules(trx, plan.deletes);
  await writes.updateRules(trx, plan.updates);
  await writes.insertRules(trx, plan.inserts);
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
  const version = id === null ? undefined : await writes.lockProductOf(trx, kind, id);
  if (!version || id === null) throw new NotFound(`No ${NOUN[kind]} with id ${JSON.stringify(rawId.slice(0, 40))}.`);
  assertNotNewer(version, expected);
  return { ...version, target: id };
}

function assertNotNewer(version: ProductVersion, expected: Date | null | undefined): void {
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

export async function createProduct(ctx: WriteContext, input: ProductInput): Promise<ProductRow> {
  const values = checkProduct(input, ctx.limits, 'input', ctx.currency);
  return transact(ctx, 'createProduct', { sku: 'input.sku' }, async (trx) => {
    const productId = await writes.insertProduct(trx, productFields(values));
    await writes.insertRows(trx, { steps: values.steps.map((step) => ({ productId, step })) });
    if (values.rules.length > 0) {
      await applyRules(trx, planRules(productId, await writes.findTrees(trx, [productId]), [], values.rules));
    }
    return { result: await readBack.product(trx, productId), logged: { productId, sku: values.sku } };
  });
}

/**
 * Makes the product with this sku equal to the input, keeping the ids of the children it matches
 * (upsert-plan.ts). Unchanged input writes nothing, so `updatedAt` stays.
 */
export async function upsertProduct(
  ctx: WriteContext,
  input: ProductInput & { expectedUpdatedAt?: Date | null },
  options: { dryRun?: boolean; path?: string } = {},
): Promise<{ product: ProductRow; outcome: UpsertOutcome }> {
  const values = checkProduct(input, ctx.limits, options.path, ctx.currency);
  return transact<{ product: ProductRow; outcome: UpsertOutcome }>(
    ctx,
    'upsertProduct',
    {},
    async (trx) => {
      const version = await writes.lockProductBySku(trx, values.sku);
      if (!version) {
        const productId = await writes.insertProduct(trx, productFields(values)).catch((err: unknown) => {
          if (err instanceof DuplicateKey)
            throw new Conflict(
              'Another write created a product with this sku at the same time; send the upsert again.',
            );
          throw err;
        });
        const plan = planUpsert(productId, { steps: [], components: [], customisations: [] }, values);
        await writes.insertRows(trx, plan.inserts);
        if (values.rules.length > 0) {
          await applyRules(trx, planRules(productId, await writes.findTrees(trx, [productId]), [], values.rules));
        }
        return {
          result: { product: await readBack.product(trx, productId), outcome: 'created' },
          logged: { productId, sku: values.sku, outcome: 'created' },
        };
      }
      assertNotNewer(version, input.expectedUpdatedAt);
      const product = await readBack.product(trx, version.id);
      const tree = await writes.findTrees(trx, [version.id]);
      const plan = planUpsert(version.id, tree, values);
      // float8 reads numeric(12,2) exactly (catalog/repository.ts), so the price compares as a number.
      const ownChanged =
        product.name !== values.name ||
        product.basePrice !== Number(values.basePrice) ||
        product.currency !== values.currency;
      if (isEmptyPlan(plan)) {
        // The stored tree already is the input's: its rules can be compared without writing anything.
        const rules = planRules(version.id, tree, await writes.findRules(trx, [version.id]), values.rules);
        if (!ownChanged && isEmptyRulePlan(rules)) {
          return { result: { product, outcome: 'unchanged' }, logged: { productId: version.id, outcome: 'unchanged' } };
        }
        if (ownChanged) await writes.updateProduct(trx, version.id, productFields(values));
        await applyRules(trx, rules);
      } else {
        if (ownChanged) await writes.updateProduct(trx, version.id, productFields(values));
        await writes.deleteRows(trx, plan.deletes);
        await writes.updateRows(trx, plan.updates);
        await writes.insertRows(trx, plan.inserts);
        // Deleted customisations took their rules with them; what is left is matched against the written tree.
        const written = await writes.findTrees(trx, [version.id]);
        await applyRules(trx, planRules(version.id, written, await writes.findRules(trx, [version.id]), values.rules));
      }
      return {
        result: { product: await readBack.product(trx, version.id), outcome: 'updated' },
        logged: { productId: version.id, outcome: 'updated', deleted: plan.deletes },
      };
    },
    options,
  );
}

import { Conflict } from '../../../platform/errors.ts';
import type { ProductRow } from '../repository.ts';
import type { CatalogDb } from '../tables.ts';
import {
  deleteProductRow,
  deleteRows,
  DuplicateKey,
  insertProduct,
  insertRows,
  lockProductBySku,
  updateProductRow,
  updateRows,
} from './repository.ts';
import { deleteRules, findRules, insertRules, updateRules } from './rule-repository.ts';
import {
  assertNotNewer,
  lockVersion,
  readBack,
  transact,
  type Changes,
  type Versioned,
  type WriteContext,
} from './transaction.ts';
import { findTrees } from './tree-repository.ts';
import { isEmptyPlan, isEmptyRulePlan, planRules, planUpsert, type RulePlan } from './upsert-plan.ts';
import type { ProductInput, ProductValues } from './inputs.ts';
import { checkChanges, checkProduct, productRules } from './validation.ts';

// Writes of a whole product: create, upsert (the import's write), change its own fields, delete.

export type UpsertOutcome = 'created' | 'updated' | 'unchanged';

const productFields = (values: ProductValues) => ({
  name: values.name,
  sku: values.sku,
  basePrice: values.basePrice,
  currency: values.currency,
});

async function applyRules(trx: CatalogDb, plan: RulePlan): Promise<void> {
  await deleteRules(trx, plan.deletes);
  await updateRules(trx, plan.updates);
  await insertRules(trx, plan.inserts);
}

export async function createProduct(ctx: WriteContext, input: ProductInput): Promise<ProductRow> {
  const values = checkProduct(input, ctx.limits, 'input', ctx.currency);
  return transact(ctx, 'createProduct', { sku: 'input.sku' }, async (trx) => {
    const productId = await insertProduct(trx, productFields(values));
    await insertRows(trx, { steps: values.steps.map((step) => ({ productId, step })) });
    if (values.rules.length > 0) {
      await applyRules(trx, planRules(productId, await findTrees(trx, [productId]), [], values.rules));
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
      const version = await lockProductBySku(trx, values.sku);
      if (!version) {
        const productId = await insertProduct(trx, productFields(values)).catch((err: unknown) => {
          if (err instanceof DuplicateKey)
            throw new Conflict(
              'Another write created a product with this sku at the same time; send the upsert again.',
            );
          throw err;
        });
        const plan = planUpsert(productId, { steps: [], components: [], customisations: [] }, values);
        await insertRows(trx, plan.inserts);
        if (values.rules.length > 0) {
          await applyRules(trx, planRules(productId, await findTrees(trx, [productId]), [], values.rules));
        }
        return {
          result: { product: await readBack.product(trx, productId), outcome: 'created' },
          logged: { productId, sku: values.sku, outcome: 'created' },
        };
      }
      assertNotNewer(version, input.expectedUpdatedAt);
      const product = await readBack.product(trx, version.id);
      const tree = await findTrees(trx, [version.id]);
      const plan = planUpsert(version.id, tree, values);
      // float8 reads numeric(12,2) exactly (catalog/repository.ts), so the price compares as a number.
      const ownChanged =
        product.name !== values.name ||
        product.basePrice !== Number(values.basePrice) ||
        product.currency !== values.currency;
      if (isEmptyPlan(plan)) {
        // The stored tree already is the input's: its rules can be compared without writing anything.
        const rules = planRules(version.id, tree, await findRules(trx, [version.id]), values.rules);
        if (!ownChanged && isEmptyRulePlan(rules)) {
          return { result: { product, outcome: 'unchanged' }, logged: { productId: version.id, outcome: 'unchanged' } };
        }
        if (ownChanged) await updateProductRow(trx, version.id, productFields(values));
        await applyRules(trx, rules);
      } else {
        if (ownChanged) await updateProductRow(trx, version.id, productFields(values));
        await deleteRows(trx, plan.deletes);
        await updateRows(trx, plan.updates);
        await insertRows(trx, plan.inserts);
        // Deleted customisations took their rules with them; what is left is matched against the written tree.
        const written = await findTrees(trx, [version.id]);
        await applyRules(trx, planRules(version.id, written, await findRules(trx, [version.id]), values.rules));
      }
      return {
        result: { product: await readBack.product(trx, version.id), outcome: 'updated' },
        logged: { productId: version.id, outcome: 'updated', deleted: plan.deletes },
      };
    },
    options,
  );
}

export const updateProduct = (
  ctx: WriteContext,
  id: string,
  input: Versioned<Changes<{ name: string; sku: string; basePrice: number; currency: string }>>,
) => {
  const changes = checkChanges(input, productRules) as {
    name?: string;
    sku?: string;
    basePrice?: string;
    currency?: string;
  };
  return transact(ctx, 'updateProduct', { sku: 'input.sku' }, async (trx) => {
    const { target } = await lockVersion(trx, 'product', id, input.expectedUpdatedAt);
    if (Object.keys(changes).length > 0) await updateProductRow(trx, target, changes);
    return { result: await readBack.product(trx, target), logged: { productId: target } };
  });
};

export const deleteProduct = (ctx: WriteContext, id: string, expectedUpdatedAt?: Date | null) =>
  transact(ctx, 'deleteProduct', {}, async (trx) => {
    const { target } = await lockVersion(trx, 'product', id, expectedUpdatedAt);
    return { result: (await deleteProductRow(trx, target)) as ProductRow, logged: { productId: target } };
  });

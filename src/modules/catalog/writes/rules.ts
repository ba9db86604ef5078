import { ValidationFailed } from '../../../platform/errors.ts';
import type { RuleRow } from '../repository.ts';
import type { CatalogDb } from '../tables.ts';
import { deleteRuleRow, findRules, insertRules } from './rule-repository.ts';
import { lockVersion, transact, type Versioned, type WriteContext } from './transaction.ts';
import { findTrees } from './tree-repository.ts';
import { refIndex, refsById } from './upsert-plan.ts';
import { check } from './checker.ts';
import { maxRulesOf, type RuleKind } from './inputs.ts';
import { ruleKey } from './rule-validation.ts';

// The granular writes of a product's configuration rules, and the check that keeps their ends nameable.

export interface CreateRuleInput {
  kind: RuleKind;
  customisationId: string;
  otherCustomisationId: string;
  message?: string | null;
}

/**
 * Every rule end stays one a CustomisationRef names (its step order, component position and name are
 * the product's only such), so the product exports and imports back. Checked after a granular write that
 * can add such a name or move one: a component created or moved, a customisation created or renamed.
 * Only the names the write touched are looked at (a product stored otherwise stays writable). Costs one
 * statement when the product has no rules.
 */
export async function assertRuleEndsNameable(
  trx: CatalogDb,
  productId: string,
  written: { componentId?: string; customisationId?: string },
  path: string,
): Promise<void> {
  const rules = await findRules(trx, [productId]);
  if (rules.length === 0) return;
  const tree = await findTrees(trx, [productId]);
  const refs = refsById(tree);
  const unique = refIndex(tree, productId);
  const keyOf = (id: string) => {
    const ref = refs.get(id)!;
    return JSON.stringify([ref.stepOrder, ref.componentPosition, ref.name]);
  };
  const touched = new Set(
    tree.customisations
      .filter((x) => x.component_id === written.componentId || x.id === written.customisationId)
      .map((x) => keyOf(x.id)),
  );
  for (const id of new Set(rules.flatMap((r) => [r.customisation_id, r.other_customisation_id]))) {
    const ref = refs.get(id)!;
    const key = keyOf(id);
    if (touched.has(key) && unique.get(key) !== id) {
      throw new ValidationFailed({
        [path]: [
          `A rule names the customisation "${ref.name}" (step ${ref.stepOrder}, component position ${ref.componentPosition}), and this would give another customisation the same step order, component position and name: choose another, or delete the rule first.`,
        ],
      });
    }
  }
}

/** A rule between two customisations of the product, each named by id. */
export const createRule = (ctx: WriteContext, productId: string, input: Versioned<CreateRuleInput>) => {
  const checked = check((c) => {
    if (input.kind !== 'REQUIRES' && input.kind !== 'EXCLUDES') c.fail('input.kind', 'The selected kind is invalid.');
    const a = c.id('input.customisationId', input.customisationId);
    const b = c.id('input.otherCustomisationId', input.otherCustomisationId);
    if (a !== undefined && a === b)
      c.fail('input.otherCustomisationId', 'A rule cannot join a customisation to itself.');
    return { a, b, message: c.message('input.message', input.message) };
  });
  return transact(ctx, 'createRule', {}, async (trx) => {
    const { target } = await lockVersion(trx, 'product', productId, input.expectedUpdatedAt);
    const a = checked.a!;
    const b = checked.b!;
    const tree = await findTrees(trx, [target]);
    const refs = refsById(tree);
    const unique = refIndex(tree, target);
    const stored = await findRules(trx, [target]);
    check((c) => {
      // An end must be one an export can name (CustomisationRef), so that the product imports back.
      for (const [id, path] of [
        [a, 'input.customisationId'],
        [b, 'input.otherCustomisationId'],
      ] as const) {
        const ref = refs.get(id);
        if (!ref) c.fail(path, 'The selected customisation is not a customisation of the product.');
        else if (unique.get(JSON.stringify([ref.stepOrder, ref.componentPosition, ref.name])) !== id)
          c.fail(
            path,
            'Another customisation of the product has the same step order, component position and name: rename one first.',
          );
      }
      const key = ruleKey(input.kind, a, b);
      if (stored.some((r) => ruleKey(r.kind, r.customisation_id, r.other_customisation_id) === key)) {
        c.fail('input', 'The product already has this rule.');
      }
      const max = maxRulesOf(ctx.limits);
      if (stored.length >= max) c.fail('input', `A product may have at most ${max} rules; it has ${stored.length}.`);
    });
    const [rule] = await insertRules(trx, [
      { productId: target, kind: input.kind, customisationId: a, otherCustomisationId: b, message: checked.message },
    ]);
    return { result: rule!, logged: { productId: target, ruleId: rule!.id } };
  });
};

export const deleteRule = (ctx: WriteContext, id: string, expectedUpdatedAt?: Date | null) =>
  transact(ctx, 'deleteRule', {}, async (trx) => {
    const { target, id: productId } = await lockVersion(trx, 'rule', id, expectedUpdatedAt);
    return { result: (await deleteRuleRow(trx, target)) as RuleRow, logged: { productId, ruleId: target } };
  });

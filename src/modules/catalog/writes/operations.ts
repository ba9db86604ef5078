import { ValidationFailed } from '../../../platform/errors.ts';
import type { CatalogDb } from '../tables.ts';
import type { ComponentRow, CustomisationRow, ProductRow, RuleRow, StepRow } from '../repository.ts';
import * as writes from './repository.ts';
import { lockVersion, readBack, transact, type WriteContext } from './service.ts';
import { refIndex, refsById } from './upsert-plan.ts';
import {
  Checker,
  check,
  checkChanges,
  checkTotals,
  maxRulesOf,
  ruleKey,
  checkComponent,
  checkCustomisation,
  checkStep,
  componentRules,
  customisationRules,
  productRules,
  sizeOf,
  stepRules,
  type TreeSize,
  type ComponentInput,
  type CustomisationInput,
  type PriceMode,
  type RuleKind,
  type StepInput,
} from './validation.ts';

// The granular writes: one record (and what it contains) at a time, each checked against its product's version.

type Versioned<T> = T & { expectedUpdatedAt?: Date | null };
type Changes<T> = { [K in keyof T]?: T[K] | null };

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
    if (Object.keys(changes).length > 0) await writes.updateProduct(trx, target, changes);
    return { result: await readBack.product(trx, target), logged: { productId: target } };
  });
};

export const deleteProduct = (ctx: WriteContext, id: string, expectedUpdatedAt?: Date | null) =>
  transact(ctx, 'deleteProduct', {}, async (trx) => {
    const { target } = await lockVersion(trx, 'product', id, expectedUpdatedAt);
    return { result: (await writes.deleteProduct(trx, target)) as ProductRow, logged: { productId: target } };
  });

/**
 * A granular create keeps its product within the totals and its parent within the per-parent limit, as a
 * whole-product write would: every product stays one that an upsert (and so an import) can write back.
 * Checked after the product is locked, so concurrent creates count each other's rows.
 */
function assertFits(
  ctx: WriteContext,
  stored: TreeSize,
  added: TreeSize,
  siblings?: { count: number; max: number; kind: string; parent: string },
) {
  const c = new Checker();
  if (siblings && siblings.count >= siblings.max) {
    c.fail(
      'input',
      `A ${siblings.parent} may have at most ${siblings.max} ${siblings.kind}; it has ${siblings.count}.`,
    );
  }
  checkTotals(c, 'input', stored, added, ctx.limits);
  c.done();
}

export const createStep = (ctx: WriteContext, productId: string, input: Versioned<StepInput>) => {
  const step = check((c) => checkStep(c, input, 'input', ctx.limits));
  return transact(ctx, 'createStep', { order: 'input.order' }, async (trx) => {
    const { target, size } = await lockVersion(trx, 'product', productId, input.expectedUpdatedAt);
    assertFits(ctx, size, sizeOf(input));
    const { stepIds } = await writes.insertRows(trx, { steps: [{ productId: target, step }] });
    return { result: await readBack.step(trx, stepIds[0]!), logged: { productId: target, stepId: stepIds[0] } };
  });
};

export const updateStep = (
  ctx: WriteContext,
  id: string,
  input: Versioned<Changes<{ name: string; order: number; required: boolean }>>,
) => {
  const changes = checkChanges(input, stepRules) as { name?: string; order?: number; required?: boolean };
  return transact(ctx, 'updateStep', { order: 'input.order' }, async (trx) => {
    const { id: productId, target } = await lockVersion(trx, 'step', id, input.expectedUpdatedAt);
    if (Object.keys(changes).length > 0) await writes.updateStep(trx, target, changes);
    return { result: await readBack.step(trx, target), logged: { productId, stepId: target } };
  });
};

export const deleteStep = (ctx: WriteContext, id: string, expectedUpdatedAt?: Date | null) =>
  transact(ctx, 'deleteStep', {}, async (trx) => {
    const { id: productId, target } = await lockVersion(trx, 'step', id, expectedUpdatedAt);
    return { result: (await writes.deleteStep(trx, target)) as StepRow, logged: { productId, stepId: target } };
  });

export const createComponent = (ctx: WriteContext, stepId: string, input: Versioned<ComponentInput>) => {
  const component = check((c) => checkComponent(c, input, 'input', ctx.limits));
  return transact(ctx, 'createComponent', {}, async (trx) => {
    const { id: productId, target, size } = await lockVersion(trx, 'step', stepId, input.expectedUpdatedAt);
    const siblings = await writes.countChildren(trx, 'components', target);
    assertFits(ctx, size, sizeOf(input), {
      count: siblings,
      max: ctx.limits.maxComponentsPerStep,
      kind: 'components',
      parent: 'step',
    });
    const { componentIds } = await writes.insertRows(trx, { components: [{ stepId: target, component }] });
    await assertRuleEndsNameable(trx, productId, { componentId: componentIds[0]! }, 'input.customisations');
    return {
      result: await readBack.component(trx, componentIds[0]!),
      logged: { productId, componentId: componentIds[0] },
    };
  });
};

export const updateComponent = (
  ctx: WriteContext,
  id: string,
  input: Versioned<Changes<{ name: string; position: number; minSelections: number; maxSelections: number }>>,
) => {
  const { minSelections, ...changes } = checkChanges(input, componentRules) as {
    name?: string;
    position?: number;
    minSelections?: number;
  };
  // maxSelections: left out keeps it, null is no limit.
  const maxSelections = check((c) =>
    input.maxSelections === undefined || input.maxSelections === null
      ? input.maxSelections
      : c.bound('input.maxSelections', 'max selections', input.maxSelections),
  );
  return transact(ctx, 'updateComponent', {}, async (trx) => {
    const { id: productId, target } = await lockVersion(trx, 'component', id, input.expectedUpdatedAt);
    const bounds = {
      ...(minSelections !== undefined ? { min_selections: minSelections } : {}),
      ...(maxSelections !== undefined ? { max_selections: maxSelections } : {}),
    };
    if (Object.keys(bounds).length > 0) {
      const stored = (await writes.findComponentBounds(trx, target))!;
      check((c) =>
        c.selections(
          'input.minSelections',
          minSelections ?? stored.min,
          maxSelections === undefined ? stored.max : maxSelections,
        ),
      );
    }
    const all = { ...changes, ...bounds };
    if (Object.keys(all).length > 0) await writes.updateComponent(trx, target, all);
    if (all.position !== undefined)
      await assertRuleEndsNameable(trx, productId, { componentId: target }, 'input.position');
    return { result: await readBack.component(trx, target), logged: { productId, componentId: target } };
  });
};

export const deleteComponent = (ctx: WriteContext, id: string, expectedUpdatedAt?: Date | null) =>
  transact(ctx, 'deleteComponent', {}, async (trx) => {
    const { id: productId, target } = await lockVersion(trx, 'component', id, expectedUpdatedAt);
    return {
      result: (await writes.deleteComponent(trx, target)) as ComponentRow,
      logged: { productId, componentId: target },
    };
  });

export const createCustomisation = (ctx: WriteContext, componentId: string, input: Versioned<CustomisationInput>) => {
  const customisation = check((c) => checkCustomisation(c, input, 'input'));
  return transact(ctx, 'createCustomisation', {}, async (trx) => {
    const { id: productId, target, size } = await lockVersion(trx, 'component', componentId, input.expectedUpdatedAt);
    const siblings = await writes.countChildren(trx, 'customisations', target);
    const max = ctx.limits.maxCustomisationsPerComponent;
    assertFits(
      ctx,
      size,
      { steps: 0, components: 0, customisations: 1 },
      { count: siblings, max, kind: 'customisations', parent: 'component' },
    );
    const { customisationIds } = await writes.insertRows(trx, {
      customisations: [{ componentId: target, customisation }],
    });
    await assertRuleEndsNameable(trx, productId, { customisationId: customisationIds[0]! }, 'input.name');
    return {
      result: await readBack.customisation(trx, customisationIds[0]!),
      logged: { productId, customisationId: customisationIds[0] },
    };
  });
};

export const updateCustomisation = (
  ctx: WriteContext,
  id: string,
  input: Versioned<Changes<{ name: string; type: string; price: number; priceMode: PriceMode }>>,
) => {
  const { priceMode, ...changes } = checkChanges(input, customisationRules) as {
    name?: string;
    type?: string;
    price?: string;
    priceMode?: PriceMode;
  };
  const all = { ...changes, ...(priceMode !== undefined ? { price_mode: priceMode } : {}) };
  return transact(ctx, 'updateCustomisation', {}, async (trx) => {
    const { id: productId, target } = await lockVersion(trx, 'customisation', id, input.expectedUpdatedAt);
    if (Object.keys(all).length > 0) await writes.updateCustomisation(trx, target, all);
    if (all.name !== undefined) await assertRuleEndsNameable(trx, productId, { customisationId: target }, 'input.name');
    return { result: await readBack.customisation(trx, target), logged: { productId, customisationId: target } };
  });
};

export const deleteCustomisation = (ctx: WriteContext, id: string, expectedUpdatedAt?: Date | null) =>
  transact(ctx, 'deleteCustomisation', {}, async (trx) => {
    const { id: productId, target } = await lockVersion(trx, 'customisation', id, expectedUpdatedAt);
    return {
      result: (await writes.deleteCustomisation(trx, target)) as CustomisationRow,
      logged: { productId, customisationId: target },
    };
  });

/** `ids` must be every child of the parent, once each; they get slots 1, 2, … in that order. */
async function renumberChildren(
  trx: Parameters<typeof writes.renumber>[0],
  table: 'steps' | 'components',
  parentId: string,
  ids: readonly string[],
  path: string,
) {
  const stored = new Set(await writes.findChildIds(trx, table, parentId));
  const given = new Set(ids);
  if (given.size !== ids.length || given.size !== stored.size || ![...given].every((id) => stored.has(id))) {
    const parent = table === 'steps' ? 'product' : 'step';
    throw new ValidationFailed({
      [path]: [
        `The ${path} must list every ${table === 'steps' ? 'step' : 'component'} of the ${parent} exactly once.`,
      ],
    });
  }
  await writes.renumber(trx, table, ids);
}

export const reorderSteps = (
  ctx: WriteContext,
  productId: string,
  stepIds: readonly string[],
  expectedUpdatedAt?: Date | null,
) =>
  transact(ctx, 'reorderSteps', {}, async (trx) => {
    const { target } = await lockVersion(trx, 'product', productId, expectedUpdatedAt);
    await renumberChildren(trx, 'steps', target, stepIds, 'stepIds');
    return { result: await readBack.product(trx, target), logged: { productId: target } };
  });

export const reorderComponents = (
  ctx: WriteContext,
  stepId: string,
  componentIds: readonly string[],
  expectedUpdatedAt?: Date | null,
) =>
  transact(ctx, 'reorderComponents', {}, async (trx) => {
    const { id: productId, target } = await lockVersion(trx, 'step', stepId, expectedUpdatedAt);
    await renumberChildren(trx, 'components', target, componentIds, 'componentIds');
    return { result: await readBack.step(trx, target), logged: { productId, stepId: target } };
  });

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
async function assertRuleEndsNameable(
  trx: CatalogDb,
  productId: string,
  written: { componentId?: string; customisationId?: string },
  path: string,
): Promise<void> {
  const rules = await writes.findRules(trx, [productId]);
  if (rules.length === 0) return;
  const tree = await writes.findTrees(trx, [productId]);
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
    const tree = await writes.findTrees(trx, [target]);
    const refs = refsById(tree);
    const unique = refIndex(tree, target);
    const stored = await writes.findRules(trx, [target]);
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
    const [rule] = await writes.insertRules(trx, [
      { productId: target, kind: input.kind, customisationId: a, otherCustomisationId: b, message: checked.message },
    ]);
    return { result: rule!, logged: { productId: target, ruleId: rule!.id } };
  });
};

export const deleteRule = (ctx: WriteContext, id: string, expectedUpdatedAt?: Date | null) =>
  transact(ctx, 'deleteRule', {}, async (trx) => {
    const { target, id: productId } = await lockVersion(trx, 'rule', id, expectedUpdatedAt);
    return { result: (await writes.deleteRule(trx, target)) as RuleRow, logged: { productId, ruleId: target } };
  });

import { ValidationFailed } from '../../../platform/errors.ts';
import type { ComponentRow, CustomisationRow, StepRow } from '../repository.ts';
import type { CatalogDb } from '../tables.ts';
import {
  deleteComponentRow,
  deleteCustomisationRow,
  deleteStepRow,
  insertRows,
  renumber,
  updateComponentRow,
  updateCustomisationRow,
  updateStepRow,
} from './repository.ts';
import { assertRuleEndsNameable } from './rules.ts';
import { lockVersion, readBack, transact, type Changes, type Versioned, type WriteContext } from './transaction.ts';
import { countChildren, findChildIds, findComponentBounds } from './tree-repository.ts';
import { Checker, check } from './checker.ts';
import type { ComponentInput, CustomisationInput, PriceMode, StepInput, TreeSize } from './inputs.ts';
import {
  checkChanges,
  checkComponent,
  checkCustomisation,
  checkStep,
  checkTotals,
  componentRules,
  customisationRules,
  sizeOf,
  stepRules,
} from './validation.ts';

// The granular writes of a product's children: one step, component or customisation (and what it
// contains) at a time, and the reorders of steps and components, each checked against its product's version.

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
    const { stepIds } = await insertRows(trx, { steps: [{ productId: target, step }] });
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
    if (Object.keys(changes).length > 0) await updateStepRow(trx, target, changes);
    return { result: await readBack.step(trx, target), logged: { productId, stepId: target } };
  });
};

export const deleteStep = (ctx: WriteContext, id: string, expectedUpdatedAt?: Date | null) =>
  transact(ctx, 'deleteStep', {}, async (trx) => {
    const { id: productId, target } = await lockVersion(trx, 'step', id, expectedUpdatedAt);
    return { result: (await deleteStepRow(trx, target)) as StepRow, logged: { productId, stepId: target } };
  });

export const createComponent = (ctx: WriteContext, stepId: string, input: Versioned<ComponentInput>) => {
  const component = check((c) => checkComponent(c, input, 'input', ctx.limits));
  return transact(ctx, 'createComponent', {}, async (trx) => {
    const { id: productId, target, size } = await lockVersion(trx, 'step', stepId, input.expectedUpdatedAt);
    const siblings = await countChildren(trx, 'components', target);
    assertFits(ctx, size, sizeOf(input), {
      count: siblings,
      max: ctx.limits.maxComponentsPerStep,
      kind: 'components',
      parent: 'step',
    });
    const { componentIds } = await insertRows(trx, { components: [{ stepId: target, component }] });
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
      const stored = (await findComponentBounds(trx, target))!;
      check((c) =>
        c.selections(
          'input.minSelections',
          minSelections ?? stored.min,
          maxSelections === undefined ? stored.max : maxSelections,
        ),
      );
    }
    const all = { ...changes, ...bounds };
    if (Object.keys(all).length > 0) await updateComponentRow(trx, target, all);
    if (all.position !== undefined)
      await assertRuleEndsNameable(trx, productId, { componentId: target }, 'input.position');
    return { result: await readBack.component(trx, target), logged: { productId, componentId: target } };
  });
};

export const deleteComponent = (ctx: WriteContext, id: string, expectedUpdatedAt?: Date | null) =>
  transact(ctx, 'deleteComponent', {}, async (trx) => {
    const { id: productId, target } = await lockVersion(trx, 'component', id, expectedUpdatedAt);
    return {
      result: (await deleteComponentRow(trx, target)) as ComponentRow,
      logged: { productId, componentId: target },
    };
  });

export const createCustomisation = (ctx: WriteContext, componentId: string, input: Versioned<CustomisationInput>) => {
  const customisation = check((c) => checkCustomisation(c, input, 'input'));
  return transact(ctx, 'createCustomisation', {}, async (trx) => {
    const { id: productId, target, size } = await lockVersion(trx, 'component', componentId, input.expectedUpdatedAt);
    const siblings = await countChildren(trx, 'customisations', target);
    const max = ctx.limits.maxCustomisationsPerComponent;
    assertFits(
      ctx,
      size,
      { steps: 0, components: 0, customisations: 1 },
      { count: siblings, max, kind: 'customisations', parent: 'component' },
    );
    const { customisationIds } = await insertRows(trx, {
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
    if (Object.keys(all).length > 0) await updateCustomisationRow(trx, target, all);
    if (all.name !== undefined) await assertRuleEndsNameable(trx, productId, { customisationId: target }, 'input.name');
    return { result: await readBack.customisation(trx, target), logged: { productId, customisationId: target } };
  });
};

export const deleteCustomisation = (ctx: WriteContext, id: string, expectedUpdatedAt?: Date | null) =>
  transact(ctx, 'deleteCustomisation', {}, async (trx) => {
    const { id: productId, target } = await lockVersion(trx, 'customisation', id, expectedUpdatedAt);
    return {
      result: (await deleteCustomisationRow(trx, target)) as CustomisationRow,
      logged: { productId, customisationId: target },
    };
  });

/** `ids` must be every child of the parent, once each; they get slots 1, 2, … in that order. */
async function renumberChildren(
  trx: CatalogDb,
  table: 'steps' | 'components',
  parentId: string,
  ids: readonly string[],
  path: string,
) {
  const stored = new Set(await findChildIds(trx, table, parentId));
  const given = new Set(ids);
  if (given.size !== ids.length || given.size !== stored.size || ![...given].every((id) => stored.has(id))) {
    const parent = table === 'steps' ? 'product' : 'step';
    throw new ValidationFailed({
      [path]: [
        `The ${path} must list every ${table === 'steps' ? 'step' : 'component'} of the ${parent} exactly once.`,
      ],
    });
  }
  await renumber(trx, table, ids);
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

import { sql } from 'kysely';
import { componentColumns, customisationColumns, productColumns, stepColumns } from '../repository.ts';
import type { ComponentRow, CustomisationRow, ProductRow, StepRow } from '../repository.ts';
import type { CatalogDb } from '../tables.ts';
import type { ComponentValues, CustomisationValues, PriceMode, StepValues, TreeSize } from './inputs.ts';

/** A unique key the database refused: which one, for transact (transaction.ts) to put at the input's path. */
export class DuplicateKey extends Error {
  constructor(readonly key: 'sku' | 'order') {
    super(`duplicate ${key}`);
    this.name = 'DuplicateKey';
  }
}

const UNIQUE_KEYS = { products_tenant_id_sku_key: 'sku', steps_product_id_order_key: 'order' } as const;

function mapUniqueViolation(err: unknown): never {
  const { code, message } = err as { code?: string; message?: string };
  if (code === '23505') {
    for (const [constraint, key] of Object.entries(UNIQUE_KEYS)) {
      if (message?.includes(`"${constraint}"`)) throw new DuplicateKey(key);
    }
  }
  throw err;
}

const guarded = <T>(run: () => Promise<T>): Promise<T> => run().catch(mapUniqueViolation);

/**
 * The version a write checks `expectedUpdatedAt` against, and the size of its tree (migration 0015's
 * counts); the row stays locked until the transaction ends, so the size stays true for the write.
 */
export interface ProductVersion {
  id: string;
  updatedAt: Date;
  size: TreeSize;
}

const VERSION_COLUMNS = sql`p.id::text AS id, p.updated_at AS "updatedAt",
  json_build_object('steps', p.step_count, 'components', p.component_count, 'customisations', p.customisation_count) AS size`;

const OWNER_OF = {
  product: sql`products p WHERE p.id = `,
  step: sql`products p JOIN steps s ON s.product_id = p.id WHERE s.id = `,
  component: sql`products p JOIN steps s ON s.product_id = p.id JOIN components c ON c.step_id = s.id WHERE c.id = `,
  customisation: sql`products p JOIN steps s ON s.product_id = p.id JOIN components c ON c.step_id = s.id
    JOIN customisations x ON x.component_id = c.id WHERE x.id = `,
  rule: sql`products p JOIN configuration_rules r ON r.product_id = p.id WHERE r.id = `,
};
export type Owned = keyof typeof OWNER_OF;

/**
 * Every write to a product's tree locks the product first: writers of one tree take turns. Locking
 * also fixes the write's timestamp past the product's version (migration 0016: one timestamp per write).
 */
export async function lockProductOf(db: CatalogDb, kind: Owned, id: string): Promise<ProductVersion | undefined> {
  const { rows } = await sql<ProductVersion>`
    SELECT ${VERSION_COLUMNS}, catalog_write_stamp(p.updated_at) AS stamp
    FROM ${OWNER_OF[kind]}${id}::bigint FOR UPDATE OF p
  `.execute(db);
  return rows[0];
}

export async function lockProductBySku(db: CatalogDb, sku: string): Promise<ProductVersion | undefined> {
  const { rows } = await sql<ProductVersion>`
    SELECT ${VERSION_COLUMNS}, catalog_write_stamp(p.updated_at) AS stamp FROM products p WHERE sku = ${sku} FOR UPDATE
  `.execute(db);
  return rows[0];
}

/** A product's own fields as writes set them (price as numeric text). */
export interface ProductFields {
  name?: string;
  sku?: string;
  basePrice?: string;
  currency?: string;
}
const productFieldColumns = (values: ProductFields) => ({
  ...(values.name !== undefined ? { name: values.name } : {}),
  ...(values.sku !== undefined ? { sku: values.sku } : {}),
  ...(values.basePrice !== undefined ? { base_price: values.basePrice } : {}),
  ...(values.currency !== undefined ? { currency: values.currency } : {}),
});

export const insertProduct = (
  db: CatalogDb,
  values: { name: string; sku: string; basePrice?: string; currency?: string },
) =>
  guarded(async () => {
    const row = await db
      .insertInto('products')
      .values(productFieldColumns(values) as { name: string; sku: string })
      .returning(sql<string>`id::text`.as('id'))
      .executeTakeFirstOrThrow();
    return row.id;
  });

export const updateProductRow = (db: CatalogDb, id: string, values: ProductFields) =>
  guarded(() => db.updateTable('products').set(productFieldColumns(values)).where('id', '=', id).execute());

/** Ids as the rows were given: INSERT … SELECT in input order takes identity values in that order. */
const inInputOrder = (rows: { id: string }[]) =>
  rows
    .map((r) => BigInt(r.id))
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
    .map(String);

async function insertSteps(db: CatalogDb, rows: { productId: string; step: StepValues }[]): Promise<string[]> {
  if (rows.length === 0) return [];
  const { rows: ids } = await sql<{ id: string }>`
    INSERT INTO steps (product_id, name, "order", required)
    SELECT p, n, o, r FROM unnest(
      ${rows.map((r) => r.productId)}::bigint[], ${rows.map((r) => r.step.name)}::text[], ${rows.map((r) => r.step.order)}::int[],
      ${rows.map((r) => r.step.required ?? false)}::boolean[]
    ) WITH ORDINALITY AS t(p, n, o, r, i) ORDER BY i
    RETURNING id::text AS id
  `.execute(db);
  return inInputOrder(ids);
}

async function insertComponents(
  db: CatalogDb,
  rows: { stepId: string; component: ComponentValues }[],
): Promise<string[]> {
  if (rows.length === 0) return [];
  const { rows: ids } = await sql<{ id: string }>`
    INSERT INTO components (step_id, name, position, min_selections, max_selections)
    SELECT s, n, p, lo, hi FROM unnest(
      ${rows.map((r) => r.stepId)}::bigint[], ${rows.map((r) => r.component.name)}::text[],
      ${rows.map((r) => r.component.position)}::int[], ${rows.map((r) => r.component.minSelections ?? 0)}::int[],
      ${rows.map((r) => (r.component.maxSelections === undefined ? 1 : r.component.maxSelections))}::int[]
    ) WITH ORDINALITY AS t(s, n, p, lo, hi, i) ORDER BY i
    RETURNING id::text AS id
  `.execute(db);
  return inInputOrder(ids);
}

async function insertCustomisations(
  db: CatalogDb,
  rows: { componentId: string; customisation: CustomisationValues }[],
): Promise<string[]> {
  if (rows.length === 0) return [];
  const { rows: ids } = await sql<{ id: string }>`
    INSERT INTO customisations (component_id, name, type, price, price_mode)
    SELECT c, n, t, p, m FROM unnest(
      ${rows.map((r) => r.componentId)}::bigint[], ${rows.map((r) => r.customisation.name)}::text[],
      ${rows.map((r) => r.customisation.type)}::text[], ${rows.map((r) => r.customisation.price)}::numeric[],
      ${rows.map((r) => r.customisation.priceMode ?? 'ADD')}::text[]
    ) WITH ORDINALITY AS t(c, n, t, p, m, i) ORDER BY i
    RETURNING id::text AS id
  `.execute(db);
  return inInputOrder(ids);
}

/** New rows anywhere in stored trees: whole steps under products, components under steps, customisations under components. */
export interface NewRows {
  steps?: { productId: string; step: StepValues }[];
  components?: { stepId: string; component: ComponentValues }[];
  customisations?: { componentId: string; customisation: CustomisationValues }[];
}

/** At most one INSERT per table, whatever the number of trees and rows. Returns the new ids, in input order. */
export const insertRows = (db: CatalogDb, rows: NewRows) =>
  guarded(async () => {
    const steps = rows.steps ?? [];
    const stepIds = await insertSteps(db, steps);
    const components = [
      ...steps.flatMap((s, i) => s.step.components.map((component) => ({ stepId: stepIds[i]!, component }))),
      ...(rows.components ?? []),
    ];
    const componentIds = await insertComponents(db, components);
    const customisationIds = await insertCustomisations(db, [
      ...components.flatMap((c, i) =>
        c.component.customisations.map((customisation) => ({ componentId: componentIds[i]!, customisation })),
      ),
      ...(rows.customisations ?? []),
    ]);
    return { stepIds, componentIds, customisationIds };
  });

export interface RowChanges {
  steps?: { id: string; name: string; order: number; required: boolean }[];
  components?: { id: string; name: string; position: number; minSelections: number; maxSelections: number | null }[];
  customisations?: { id: string; name: string; type: string; price: string; priceMode: PriceMode }[];
}

/** One UPDATE per table; the orders of a product's steps may trade places (the key is checked per statement). */
export const updateRows = (db: CatalogDb, changes: RowChanges) =>
  guarded(async () => {
    const { steps = [], components = [], customisations = [] } = changes;
    if (steps.length > 0) {
      await sql`
        UPDATE steps s SET name = u.name, "order" = u.ord, required = u.req
        FROM unnest(${steps.map((r) => r.id)}::bigint[], ${steps.map((r) => r.name)}::text[], ${steps.map((r) => r.order)}::int[],
          ${steps.map((r) => r.required)}::boolean[]) AS u(id, name, ord, req)
        WHERE s.id = u.id
      `.execute(db);
    }
    if (components.length > 0) {
      await sql`
        UPDATE components c SET name = u.name, position = u.pos, min_selections = u.lo, max_selections = u.hi
        FROM unnest(${components.map((r) => r.id)}::bigint[], ${components.map((r) => r.name)}::text[],
          ${components.map((r) => r.position)}::int[], ${components.map((r) => r.minSelections)}::int[],
          ${components.map((r) => r.maxSelections)}::int[]) AS u(id, name, pos, lo, hi)
        WHERE c.id = u.id
      `.execute(db);
    }
    if (customisations.length > 0) {
      await sql`
        UPDATE customisations x SET name = u.name, type = u.type, price = u.price, price_mode = u.mode
        FROM unnest(${customisations.map((r) => r.id)}::bigint[], ${customisations.map((r) => r.name)}::text[],
          ${customisations.map((r) => r.type)}::text[], ${customisations.map((r) => r.price)}::numeric[],
          ${customisations.map((r) => r.priceMode)}::text[]) AS u(id, name, type, price, mode)
        WHERE x.id = u.id
      `.execute(db);
    }
  });

/** Sets a step's or a component's slot to 1, 2, … in the order of `ids`. */
export async function renumber(db: CatalogDb, table: 'steps' | 'components', ids: readonly string[]): Promise<void> {
  const column = table === 'steps' ? sql.id('order') : sql.id('position');
  await sql`
    UPDATE ${sql.table(table)} r SET ${column} = u.slot::int
    FROM unnest(${ids}::bigint[]) WITH ORDINALITY AS u(id, slot)
    WHERE r.id = u.id
  `.execute(db);
}

export async function deleteRows(
  db: CatalogDb,
  ids: { steps?: string[]; components?: string[]; customisations?: string[] },
): Promise<void> {
  for (const table of ['customisations', 'components', 'steps'] as const) {
    const list = ids[table] ?? [];
    if (list.length > 0) await sql`DELETE FROM ${sql.table(table)} WHERE id = ANY(${list}::bigint[])`.execute(db);
  }
}

// One row each, returned as it was (a delete) or is now (after a write), shaped as the reads shape it.
export const deleteProductRow = (db: CatalogDb, id: string) =>
  db.deleteFrom('products').where('id', '=', id).returning(productColumns).executeTakeFirst() as Promise<
    ProductRow | undefined
  >;
export const deleteStepRow = (db: CatalogDb, id: string) =>
  db.deleteFrom('steps').where('id', '=', id).returning(stepColumns).executeTakeFirst() as Promise<StepRow | undefined>;
export const deleteComponentRow = (db: CatalogDb, id: string) =>
  db.deleteFrom('components').where('id', '=', id).returning(componentColumns).executeTakeFirst() as Promise<
    ComponentRow | undefined
  >;
export const deleteCustomisationRow = (db: CatalogDb, id: string) =>
  db.deleteFrom('customisations').where('id', '=', id).returning(customisationColumns).executeTakeFirst() as Promise<
    CustomisationRow | undefined
  >;

export const updateStepRow = (
  db: CatalogDb,
  id: string,
  values: { name?: string; order?: number; required?: boolean },
) => guarded(() => db.updateTable('steps').set(values).where('id', '=', id).execute());
export const updateComponentRow = (
  db: CatalogDb,
  id: string,
  values: { name?: string; position?: number; min_selections?: number; max_selections?: number | null },
) => db.updateTable('components').set(values).where('id', '=', id).execute();
export const updateCustomisationRow = (
  db: CatalogDb,
  id: string,
  values: { name?: string; type?: string; price?: string; price_mode?: PriceMode },
) => db.updateTable('customisations').set(values).where('id', '=', id).execute();

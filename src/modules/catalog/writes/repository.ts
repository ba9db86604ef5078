import { sql } from 'kysely';
import { componentColumns, customisationColumns, productColumns, stepColumns } from '../repository.ts';
import type { ComponentRow, CustomisationRow, ProductRow, RuleRow, StepRow } from '../repository.ts';
import type { CatalogDb } from '../tables.ts';
import type { ComponentValues, CustomisationValues, PriceMode, RuleKind, StepValues, TreeSize } from './validation.ts';

/** A unique key the database refused: which one, for the service to put at the input's path. */
export class DuplicateKey extends Error {
  constructor(readonly key: 'sku' | 'order') {
    super(`duplicate ${key}`);
    this.name = 'DuplicateKey';
  }
}

const UNIQUE_KEYS = { products_sku_key: 'sku', steps_product_id_order_key: 'order' } as const;

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

export const updateProduct = (db: CatalogDb, id: string, values: ProductFields) =>
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
export const deleteProduct = (db: CatalogDb, id: string) =>
  db.deleteFrom('products').where('id', '=', id).returning(productColumns).executeTakeFirst() as Promise<
    ProductRow | undefined
  >;
export const deleteStep = (db: CatalogDb, id: string) =>
  db.deleteFrom('steps').where('id', '=', id).returning(stepColumns).executeTakeFirst() as Promise<StepRow | undefined>;
export const deleteComponent = (db: CatalogDb, id: string) =>
  db.deleteFrom('components').where('id', '=', id).returning(componentColumns).executeTakeFirst() as Promise<
    ComponentRow | undefined
  >;
export const deleteCustomisation = (db: CatalogDb, id: string) =>
  db.deleteFrom('customisations').where('id', '=', id).returning(customisationColumns).executeTakeFirst() as Promise<
    CustomisationRow | undefined
  >;

export interface StoredTree {
  steps: { id: string; product_id: string; name: string; order: number; required: boolean }[];
  components: {
    id: string;
    step_id: string;
    name: string;
    position: number;
    min_selections: number;
    max_selections: number | null;
  }[];
  customisations: {
    id: string;
    component_id: string;
    name: string;
    type: string;
    price: string;
    price_mode: PriceMode;
  }[];
}

/** The trees of some products as upsert and export compare them: prices as stored text, children in read order. */
export async function findTrees(db: CatalogDb, productIds: readonly string[]): Promise<StoredTree> {
  const ids = [...productIds];
  const steps = await sql<StoredTree['steps'][number]>`
    SELECT id::text AS id, product_id::text AS product_id, name, "order", required FROM steps
    WHERE product_id = ANY(${ids}::bigint[]) ORDER BY steps.product_id, steps."order"
  `.execute(db);
  const components = await sql<StoredTree['components'][number]>`
    SELECT c.id::text AS id, c.step_id::text AS step_id, c.name, c.position, c.min_selections, c.max_selections
    FROM components c JOIN steps s ON s.id = c.step_id
    WHERE s.product_id = ANY(${ids}::bigint[]) ORDER BY c.step_id, c.position, c.id
  `.execute(db);
  const customisations = await sql<StoredTree['customisations'][number]>`
    SELECT x.id::text AS id, x.component_id::text AS component_id, x.name, x.type, x.price::text AS price, x.price_mode
    FROM customisations x JOIN components c ON c.id = x.component_id JOIN steps s ON s.id = c.step_id
    WHERE s.product_id = ANY(${ids}::bigint[]) ORDER BY x.component_id, x.id
  `.execute(db);
  return { steps: steps.rows, components: components.rows, customisations: customisations.rows };
}

/** Fresh planner statistics after a bulk import: until autovacuum gets to it, a grown table looks empty. */
export async function analyzeCatalog(db: CatalogDb): Promise<void> {
  await sql`ANALYZE products, steps, components, customisations, configuration_rules`.execute(db);
}

export interface ExportedProductRow {
  id: string;
  sku: string;
  name: string;
  base_price: string;
  currency: string;
}

/** Products in sku order, a page at a time (export). */
export async function findProductsBySku(
  db: CatalogDb,
  afterSku: string | null,
  limit: number,
): Promise<ExportedProductRow[]> {
  const { rows } = await sql<ExportedProductRow>`
    SELECT id::text AS id, sku, name, base_price::text AS base_price, currency FROM products
    WHERE ${afterSku}::text IS NULL OR sku COLLATE "C" > ${afterSku}::text
    ORDER BY sku COLLATE "C" LIMIT ${limit}
  `.execute(db);
  return rows;
}

/** How many children a parent has: a granular create checks its parent's limit (the product is locked). */
export async function countChildren(
  db: CatalogDb,
  table: 'components' | 'customisations',
  parentId: string,
): Promise<number> {
  const parent = table === 'components' ? sql.ref('step_id') : sql.ref('component_id');
  const { rows } = await sql<{
    n: number;
  }>`SELECT count(*)::int AS n FROM ${sql.table(table)} WHERE ${parent} = ${parentId}::bigint`.execute(db);
  return rows[0]!.n;
}

/** The ids of a parent's children, for a reorder to check against. */
export async function findChildIds(db: CatalogDb, table: 'steps' | 'components', parentId: string): Promise<string[]> {
  const parent = table === 'steps' ? sql.ref('product_id') : sql.ref('step_id');
  const { rows } = await sql<{
    id: string;
  }>`SELECT id::text AS id FROM ${sql.table(table)} WHERE ${parent} = ${parentId}::bigint`.execute(db);
  return rows.map((r) => r.id);
}

export const updateStep = (db: CatalogDb, id: string, values: { name?: string; order?: number; required?: boolean }) =>
  guarded(() => db.updateTable('steps').set(values).where('id', '=', id).execute());
export const updateComponent = (
  db: CatalogDb,
  id: string,
  values: { name?: string; position?: number; min_selections?: number; max_selections?: number | null },
) => db.updateTable('components').set(values).where('id', '=', id).execute();
export const updateCustomisation = (
  db: CatalogDb,
  id: string,
  values: { name?: string; type?: string; price?: string; price_mode?: PriceMode },
) => db.updateTable('customisations').set(values).where('id', '=', id).execute();

/** A component's selection bounds, for an update that changes one of them to check against the other. */
export async function findComponentBounds(
  db: CatalogDb,
  id: string,
): Promise<{ min: number; max: number | null } | undefined> {
  const { rows } = await sql<{ min: number; max: number | null }>`
    SELECT min_selections AS min, max_selections AS max FROM components WHERE id = ${id}::bigint
  `.execute(db);
  return rows[0];
}

// Rules. Ends are stored customisation ids; whole-tree writes name them by CustomisationRef and resolve
// the refs against the stored tree once the tree is written (upsert-plan.ts resolveRules).

export interface StoredRule {
  id: string;
  product_id: string;
  kind: RuleKind;
  customisation_id: string;
  other_customisation_id: string;
  message: string | null;
}
export interface NewRule {
  productId: string;
  kind: RuleKind;
  customisationId: string;
  otherCustomisationId: string;
  message: string | null;
}

const ruleRowColumns = sql`id::text AS id, product_id::text AS product_id, kind, customisation_id::text AS "customisationId",
  other_customisation_id::text AS "otherCustomisationId", message`;

/** The rules of some products, by product then id: the order of Product.rules and of the export. */
export async function findRules(db: CatalogDb, productIds: readonly string[]): Promise<StoredRule[]> {
  // Qualified: a bare `id` would be the text column of the select list, and 10 would sort before 9.
  const { rows } = await sql<StoredRule>`
    SELECT id::text AS id, product_id::text AS product_id, kind, customisation_id::text AS customisation_id,
      other_customisation_id::text AS other_customisation_id, message
    FROM configuration_rules WHERE product_id = ANY(${[...productIds]}::bigint[])
    ORDER BY configuration_rules.product_id, configuration_rules.id
  `.execute(db);
  return rows;
}

/** One INSERT, ids in input order. */
export async function insertRules(db: CatalogDb, rules: readonly NewRule[]): Promise<RuleRow[]> {
  if (rules.length === 0) return [];
  const { rows } = await sql<RuleRow>`
    INSERT INTO configuration_rules (product_id, kind, customisation_id, other_customisation_id, message)
    SELECT p, k, a, b, m FROM unnest(
      ${rules.map((r) => r.productId)}::bigint[], ${rules.map((r) => r.kind)}::text[],
      ${rules.map((r) => r.customisationId)}::bigint[], ${rules.map((r) => r.otherCustomisationId)}::bigint[],
      ${rules.map((r) => r.message)}::text[]
    ) WITH ORDINALITY AS t(p, k, a, b, m, i) ORDER BY i
    RETURNING ${ruleRowColumns}
  `.execute(db);
  return rows.sort((a, b) => (BigInt(a.id) < BigInt(b.id) ? -1 : 1));
}

/** A kept rule's ends (an EXCLUDES may be turned round) and message. */
export async function updateRules(
  db: CatalogDb,
  rules: readonly { id: string; customisationId: string; otherCustomisationId: string; message: string | null }[],
): Promise<void> {
  if (rules.length === 0) return;
  await sql`
    UPDATE configuration_rules r SET customisation_id = u.a, other_customisation_id = u.b, message = u.m
    FROM unnest(${rules.map((r) => r.id)}::bigint[], ${rules.map((r) => r.customisationId)}::bigint[],
      ${rules.map((r) => r.otherCustomisationId)}::bigint[], ${rules.map((r) => r.message)}::text[]) AS u(id, a, b, m)
    WHERE r.id = u.id
  `.execute(db);
}

export async function deleteRules(db: CatalogDb, ids: readonly string[]): Promise<void> {
  if (ids.length > 0) await sql`DELETE FROM configuration_rules WHERE id = ANY(${[...ids]}::bigint[])`.execute(db);
}

export async function deleteRule(db: CatalogDb, id: string): Promise<RuleRow | undefined> {
  const { rows } = await sql<RuleRow>`
    DELETE FROM configuration_rules WHERE id = ${id}::bigint RETURNING ${ruleRowColumns}
  `.execute(db);
  return rows[0];
}

/** A product and its whole tree, as the seed generator and tests make them. */
export interface NewProductTree {
  name: string;
  sku: string;
  steps: StepValues[];
}

/** Many products at once, four statements in all. A product whose sku exists is skipped with its tree (reseeding is a no-op). */
export async function insertProductTrees(db: CatalogDb, trees: readonly NewProductTree[]): Promise<number> {
  if (trees.length === 0) return 0;
  const { rows } = await sql<{ id: string; sku: string }>`
    INSERT INTO products (name, sku)
    SELECT * FROM unnest(${trees.map((t) => t.name)}::text[], ${trees.map((t) => t.sku)}::text[])
    ON CONFLICT (sku) DO NOTHING
    RETURNING id::text AS id, sku
  `.execute(db);
  const idBySku = new Map(rows.map((r) => [r.sku, r.id]));
  await insertRows(db, {
    steps: trees.flatMap((t) => {
      const productId = idBySku.get(t.sku);
      return productId === undefined ? [] : t.steps.map((step) => ({ productId, step }));
    }),
  });
  return idBySku.size;
}

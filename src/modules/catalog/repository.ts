import { sql } from 'kysely';
import type { Db } from '../../platform/db.ts';
import { preparedQuery } from '../../platform/prepared.ts';
import type { ComponentParent, CustomisationParent, ProductParent, StepParent } from './mappers.ts';

// All catalog SQL. Plain functions taking the database (or a transaction) first
// and returning rows.
//
// Reads hand rows over already shaped as GraphQL parents: ids (and the parent
// keys the loaders group by) are cast to text and prices to float8 in SQL, so
// pg creates one object per row and parses nothing, where a bigint or numeric
// column would cost a parse in pg and a second object in a mapper, per row, on
// pages of 1,700 rows. float8 is exact here: numeric(12,2) has at most 12
// significant digits, and PostgreSQL prints a float8 as the shortest text that
// reads back as the same double, which is what Number() makes of '12.50' (12.5).

export type ProductRow = ProductParent;
export interface StepRow extends StepParent {
  product_id: string;
}
export interface ComponentRow extends ComponentParent {
  step_id: string;
}
export interface CustomisationRow extends CustomisationParent {
  component_id: string;
}

const idText = sql<string>`id::text`.as('id');
const productIdText = sql<string>`product_id::text`.as('product_id');
const stepIdText = sql<string>`step_id::text`.as('step_id');
const componentIdText = sql<string>`component_id::text`.as('component_id');
const priceFloat = sql<number>`price::float8`.as('price');
// ORDER BY prefers an output column to a table column of the same name, and the
// casts above make id and the parent keys text: every ORDER BY names its table.

export interface ProductPageRows {
  rows: ProductRow[];
  /** Products in the whole table (null when not asked for). */
  total: number | null;
  /** Products with an id at or before the cursor: the page's offset (null when not asked for). */
  skipped: number | null;
}

type PageRow = { total: string | null; skipped: string | null; id: string | null; name: string | null; sku: string | null };

// The counts scan every product id; a page that selects no field needing them
// (total, lastPage, currentPage, firstItem, lastItem) skips them. Either way one statement.
const productPageWithCounts = preparedQuery<PageRow>('catalog_product_page_counted', (db) =>
  sql<PageRow>`
    SELECT c.total, c.skipped, p.id::text AS id, p.name, p.sku
    FROM (
      SELECT count(*) AS total, count(*) FILTER (WHERE id <= ${'0'}::bigint) AS skipped
      FROM products
    ) c
    LEFT JOIN LATERAL (
      SELECT id, name, sku FROM products
      WHERE id > ${'0'}::bigint
      ORDER BY id
      LIMIT ${1}
    ) p ON true
    ORDER BY p.id
  `.compile(db),
);
const productPage = preparedQuery<PageRow>('catalog_product_page', (db) =>
  sql<PageRow>`
    SELECT NULL AS total, NULL AS skipped, id::text AS id, name, sku FROM products
    WHERE id > ${'0'}::bigint
    ORDER BY products.id
    LIMIT ${1}
  `.compile(db),
);

/**
 * One statement for a keyset page plus, when asked, the counts PaginatorInfo needs,
 * so a page costs a single round trip whatever is selected. `limit` is one more than
 * the page size: the extra row only says whether another page exists.
 */
export async function findProductPage(
  db: Db,
  { afterId, limit, withCounts }: { afterId: string | null; limit: number; withCounts: boolean },
): Promise<ProductPageRows> {
  const after = afterId ?? '0';
  const rows = withCounts
    ? await productPageWithCounts.execute(db, [after, after, limit])
    : await productPage.execute(db, [after, limit]);
  const first = rows[0];
  return {
    total: withCounts ? Number(first?.total ?? 0) : null,
    skipped: withCounts ? Number(first?.skipped ?? 0) : null,
    rows: rows.filter((r): r is PageRow & ProductRow => r.id !== null),
  };
}

// The per-level reads behind the loaders: one statement per level of the tree
// whatever the number of parents, each a named prepared statement on PostgreSQL.
const productsByIds = preparedQuery<ProductRow>('catalog_products_by_ids', (db: Db) =>
  db
    .selectFrom('products')
    .select([idText, 'name', 'sku'])
    .where(sql<boolean>`id = ANY(${[]}::bigint[])`),
);
const stepsByProductIds = preparedQuery<StepRow>('catalog_steps_by_product_ids', (db: Db) =>
  db
    .selectFrom('steps')
    .select([idText, productIdText, 'name', 'order'])
    .where(sql<boolean>`product_id = ANY(${[]}::bigint[])`)
    .orderBy('steps.product_id')
    .orderBy('steps.order'),
);
const componentsByStepIds = preparedQuery<ComponentRow>('catalog_components_by_step_ids', (db: Db) =>
  db
    .selectFrom('components')
    .select([idText, stepIdText, 'name'])
    .where(sql<boolean>`step_id = ANY(${[]}::bigint[])`)
    .orderBy('components.step_id')
    .orderBy('components.position')
    .orderBy('components.id'),
);
const customisationsByComponentIds = preparedQuery<CustomisationRow>(
  'catalog_customisations_by_component_ids',
  (db: Db) =>
    db
      .selectFrom('customisations')
      .select([idText, componentIdText, 'name', 'type', priceFloat])
      .where(sql<boolean>`component_id = ANY(${[]}::bigint[])`)
      .orderBy('customisations.component_id')
      .orderBy('customisations.id'),
);

export function findProductsByIds(db: Db, ids: readonly string[]): Promise<ProductRow[]> {
  return productsByIds.execute(db, [ids]);
}

// By-id reads of the nested entities, for federation's entity references: one
// statement per batch of ids, like the product lookup above.
export async function findStepsByIds(db: Db, ids: readonly string[]): Promise<StepRow[]> {
  return db
    .selectFrom('steps')
    .select([idText, productIdText, 'name', 'order'])
    .where(sql<boolean>`id = ANY(${ids}::bigint[])`)
    .execute();
}

export async function findComponentsByIds(db: Db, ids: readonly string[]): Promise<ComponentRow[]> {
  return db
    .selectFrom('components')
    .select([idText, stepIdText, 'name'])
    .where(sql<boolean>`id = ANY(${ids}::bigint[])`)
    .execute();
}

export async function findCustomisationsByIds(db: Db, ids: readonly string[]): Promise<CustomisationRow[]> {
  return db
    .selectFrom('customisations')
    .select([idText, componentIdText, 'name', 'type', priceFloat])
    .where(sql<boolean>`id = ANY(${ids}::bigint[])`)
    .execute();
}

export function findStepsByProductIds(db: Db, productIds: readonly string[]): Promise<StepRow[]> {
  return stepsByProductIds.execute(db, [productIds]);
}

export function findComponentsByStepIds(db: Db, stepIds: readonly string[]): Promise<ComponentRow[]> {
  return componentsByStepIds.execute(db, [stepIds]);
}

export function findCustomisationsByComponentIds(db: Db, componentIds: readonly string[]): Promise<CustomisationRow[]> {
  return customisationsByComponentIds.execute(db, [componentIds]);
}

export async function countProducts(db: Db): Promise<number> {
  const row = await db
    .selectFrom('products')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

// ---- Writes (seeding and administration) ----

export interface NewProductTree {
  name: string;
  sku: string;
  steps: {
    name: string;
    order: number;
    components: {
      name: string;
      position: number;
      customisations: { name: string; type: string; price: string }[];
    }[];
  }[];
}

/**
 * Inserts whole product trees with one statement per table, whatever the batch
 * size: columns travel as arrays through unnest(), so the statement text and its
 * parameter count never grow with the batch. Products whose sku exists already
 * are skipped with their subtree, which makes reseeding with the same seed a no-op.
 * Returns the number of products inserted.
 */
export async function insertProductTrees(db: Db, trees: readonly NewProductTree[]): Promise<number> {
  if (trees.length === 0) return 0;
  const products = await sql<{ id: string; sku: string }>`
    INSERT INTO products (name, sku)
    SELECT * FROM unnest(${trees.map((t) => t.name)}::text[], ${trees.map((t) => t.sku)}::text[])
    ON CONFLICT (sku) DO NOTHING
    RETURNING id, sku
  `.execute(db);
  const productIdBySku = new Map(products.rows.map((r) => [r.sku, r.id]));

  const stepCols = { productId: [] as string[], name: [] as string[], order: [] as number[] };
  for (const tree of trees) {
    const productId = productIdBySku.get(tree.sku);
    if (productId === undefined) continue;
    for (const step of tree.steps) {
      stepCols.productId.push(productId);
      stepCols.name.push(step.name);
      stepCols.order.push(step.order);
    }
  }
  if (stepCols.productId.length === 0) return productIdBySku.size;
  const steps = await sql<{ id: string; product_id: string; order: number }>`
    INSERT INTO steps (product_id, name, "order")
    SELECT * FROM unnest(${stepCols.productId}::bigint[], ${stepCols.name}::text[], ${stepCols.order}::int[])
    RETURNING id, product_id, "order"
  `.execute(db);
  const stepIdByKey = new Map(steps.rows.map((r) => [`${r.product_id}:${r.order}`, r.id]));

  const compCols = { stepId: [] as string[], name: [] as string[], position: [] as number[] };
  const compKeys: string[] = [];
  for (const tree of trees) {
    const productId = productIdBySku.get(tree.sku);
    if (productId === undefined) continue;
    for (const step of tree.steps) {
      const stepId = stepIdByKey.get(`${productId}:${step.order}`)!;
      for (const component of step.components) {
        compCols.stepId.push(stepId);
        compCols.name.push(component.name);
        compCols.position.push(component.position);
        compKeys.push(`${stepId}:${component.position}`);
      }
    }
  }
  if (compCols.stepId.length === 0) return productIdBySku.size;
  const components = await sql<{ id: string; step_id: string; position: number }>`
    INSERT INTO components (step_id, name, position)
    SELECT * FROM unnest(${compCols.stepId}::bigint[], ${compCols.name}::text[], ${compCols.position}::int[])
    RETURNING id, step_id, position
  `.execute(db);
  const componentIdByKey = new Map(components.rows.map((r) => [`${r.step_id}:${r.position}`, r.id]));

  const custCols = { componentId: [] as string[], name: [] as string[], type: [] as string[], price: [] as string[] };
  let k = 0;
  for (const tree of trees) {
    if (!productIdBySku.has(tree.sku)) continue;
    for (const step of tree.steps) {
      for (const component of step.components) {
        const componentId = componentIdByKey.get(compKeys[k++]!)!;
        for (const c of component.customisations) {
          custCols.componentId.push(componentId);
          custCols.name.push(c.name);
          custCols.type.push(c.type);
          custCols.price.push(c.price);
        }
      }
    }
  }
  if (custCols.componentId.length > 0) {
    await sql`
      INSERT INTO customisations (component_id, name, type, price)
      SELECT * FROM unnest(
        ${custCols.componentId}::bigint[], ${custCols.name}::text[],
        ${custCols.type}::text[], ${custCols.price}::numeric[]
      )
    `.execute(db);
  }
  return productIdBySku.size;
}

import { sql } from 'kysely';
import type { Db } from '../../platform/db.ts';

// All catalog SQL. Plain functions taking the database (or a transaction) first
// and returning rows; bigint ids and numeric prices stay strings here.

export interface ProductRow {
  id: string;
  name: string;
  sku: string;
}
export interface StepRow {
  id: string;
  product_id: string;
  name: string;
  order: number;
}
export interface ComponentRow {
  id: string;
  step_id: string;
  name: string;
  position: number;
}
export interface CustomisationRow {
  id: string;
  component_id: string;
  name: string;
  type: string;
  price: string;
}

export interface ProductPageRows {
  rows: ProductRow[];
  /** Products in the whole table. */
  total: number;
  /** Products with an id at or before the cursor: the page's offset. */
  skipped: number;
}

/**
 * One statement for a keyset page plus the counts PaginatorInfo needs, so a page
 * costs a single round trip whatever is selected. `limit` is one more than the page
 * size: the extra row only says whether another page exists.
 */
export async function findProductPage(
  db: Db,
  { afterId, limit }: { afterId: string | null; limit: number },
): Promise<ProductPageRows> {
  const after = afterId ?? '0';
  const { rows } = await sql<{
    total: string;
    skipped: string;
    id: string | null;
    name: string | null;
    sku: string | null;
  }>`
    SELECT c.total, c.skipped, p.id, p.name, p.sku
    FROM (
      SELECT count(*) AS total, count(*) FILTER (WHERE id <= ${after}::bigint) AS skipped
      FROM products
    ) c
    LEFT JOIN LATERAL (
      SELECT id, name, sku FROM products
      WHERE id > ${after}::bigint
      ORDER BY id
      LIMIT ${limit}
    ) p ON true
    ORDER BY p.id
  `.execute(db);
  const first = rows[0];
  return {
    total: Number(first?.total ?? 0),
    skipped: Number(first?.skipped ?? 0),
    rows: rows.filter((r): r is typeof r & ProductRow => r.id !== null),
  };
}

export async function findProductsByIds(db: Db, ids: readonly string[]): Promise<ProductRow[]> {
  return db
    .selectFrom('products')
    .select(['id', 'name', 'sku'])
    .where(sql<boolean>`id = ANY(${ids}::bigint[])`)
    .execute();
}

// By-id reads of the nested entities, for federation's entity references: one
// statement per batch of ids, like the product lookup above.
export async function findStepsByIds(db: Db, ids: readonly string[]): Promise<StepRow[]> {
  return db
    .selectFrom('steps')
    .select(['id', 'product_id', 'name', 'order'])
    .where(sql<boolean>`id = ANY(${ids}::bigint[])`)
    .execute();
}

export async function findComponentsByIds(db: Db, ids: readonly string[]): Promise<ComponentRow[]> {
  return db
    .selectFrom('components')
    .select(['id', 'step_id', 'name', 'position'])
    .where(sql<boolean>`id = ANY(${ids}::bigint[])`)
    .execute();
}

export async function findCustomisationsByIds(db: Db, ids: readonly string[]): Promise<CustomisationRow[]> {
  return db
    .selectFrom('customisations')
    .select(['id', 'component_id', 'name', 'type', 'price'])
    .where(sql<boolean>`id = ANY(${ids}::bigint[])`)
    .execute();
}

export async function findStepsByProductIds(db: Db, productIds: readonly string[]): Promise<StepRow[]> {
  return db
    .selectFrom('steps')
    .select(['id', 'product_id', 'name', 'order'])
    .where(sql<boolean>`product_id = ANY(${productIds}::bigint[])`)
    .orderBy('product_id')
    .orderBy('order')
    .execute();
}

export async function findComponentsByStepIds(db: Db, stepIds: readonly string[]): Promise<ComponentRow[]> {
  return db
    .selectFrom('components')
    .select(['id', 'step_id', 'name', 'position'])
    .where(sql<boolean>`step_id = ANY(${stepIds}::bigint[])`)
    .orderBy('step_id')
    .orderBy('position')
    .orderBy('id')
    .execute();
}

export async function findCustomisationsByComponentIds(
  db: Db,
  componentIds: readonly string[],
): Promise<CustomisationRow[]> {
  return db
    .selectFrom('customisations')
    .select(['id', 'component_id', 'name', 'type', 'price'])
    .where(sql<boolean>`component_id = ANY(${componentIds}::bigint[])`)
    .orderBy('component_id')
    .orderBy('id')
    .execute();
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

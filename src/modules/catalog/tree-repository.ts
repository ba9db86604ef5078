import { sql } from 'kysely';
import type { CatalogDb } from './tables.ts';

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
 * One statement per table whatever the batch: columns travel as arrays through unnest(). Products whose sku
 * exists are skipped with their subtree, so reseeding with the same seed is a no-op.
 */
export async function insertProductTrees(db: CatalogDb, trees: readonly NewProductTree[]): Promise<number> {
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

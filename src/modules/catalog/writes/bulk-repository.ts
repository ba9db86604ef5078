import { sql } from 'kysely';
import type { CatalogDb } from '../tables.ts';
import { insertRows } from './repository.ts';
import type { StepValues } from './inputs.ts';

// Whole catalogues at once: the export's pages, the seed's and tests' bulk insert, statistics after an import.

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
    ON CONFLICT (tenant_id, sku) DO NOTHING
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

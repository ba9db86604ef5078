import { sql } from 'kysely';
import type { CatalogDb } from '../tables.ts';
import type { PriceMode } from './inputs.ts';

// What writes read of stored trees, inside their transaction: to plan an upsert, export, check a limit.

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

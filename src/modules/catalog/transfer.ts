import { Conflict, ValidationFailed, type FieldErrors } from '../../platform/errors.ts';
import type { CatalogDb } from './tables.ts';
import { analyzeCatalog, findProductsBySku, findTrees, type StoredTree } from './write-repository.ts';
import { upsertProduct, type UpsertOutcome, type WriteContext } from './write-service.ts';
import type { ProductInput } from './write-validation.ts';

// The catalogue as a file: `{"products": [UpsertProductInput…]}`, without ids, so it imports anywhere.

const PAGE = 500;

function group<T, K extends keyof T>(rows: readonly T[], key: K): Map<T[K], T[]> {
  const map = new Map<T[K], T[]>();
  for (const row of rows) {
    const list = map.get(row[key]);
    if (list) list.push(row);
    else map.set(row[key], [row]);
  }
  return map;
}

/** Key order and child order are part of the format: the same catalogue always gives the same bytes. */
function exported(product: { id: string; sku: string; name: string }, tree: ReturnType<typeof indexTree>) {
  return {
    sku: product.sku,
    name: product.name,
    steps: (tree.steps.get(product.id) ?? []).map((s) => ({
      name: s.name,
      order: s.order,
      components: (tree.components.get(s.id) ?? []).map((c) => ({
        name: c.name,
        position: c.position,
        customisations: (tree.customisations.get(c.id) ?? []).map((x) => ({ name: x.name, type: x.type, price: Number(x.price) })),
      })),
    })),
  };
}

const indexTree = (tree: StoredTree) => ({
  steps: group(tree.steps, 'product_id'),
  components: group(tree.components, 'step_id'),
  customisations: group(tree.customisations, 'component_id'),
});

/**
 * Writes the whole catalogue to `sink`, a product per line, in byte order of sku, from one snapshot
 * (a repeatable-read transaction), a page of products and three statements at a time.
 */
export async function exportCatalog(db: CatalogDb, sink: (chunk: string) => Promise<void>): Promise<number> {
  return db
    .transaction()
    .setIsolationLevel('repeatable read')
    .execute(async (trx) => {
      await sink('{"products":[');
      let count = 0;
      for (let after: string | null = null; ; ) {
        const page = await findProductsBySku(trx, after, PAGE);
        if (page.length === 0) break;
        const tree = indexTree(await findTrees(trx, page.map((p) => p.id)));
        await sink(page.map((p) => `${count++ === 0 ? '' : ','}\n${JSON.stringify(exported(p, tree))}`).join(''));
        after = page.at(-1)!.sku;
      }
      await sink(count === 0 ? ']}\n' : '\n]}\n');
      return count;
    });
}

export type ImportOutcome = UpsertOutcome | 'failed';

export interface ImportItem {
  index: number;
  sku: string | undefined;
  /** Absent when the entry was refused before it reached the service (its shape). */
  input?: ProductInput;
  errors?: FieldErrors;
}

export interface ImportResult {
  index: number;
  sku: string | undefined;
  outcome: ImportOutcome;
  errors?: FieldErrors;
}

/**
 * Upserts each product through the write service, one transaction each, a few at a time. A product
 * that fails is reported and the rest go on; a later entry repeating a sku is refused.
 */
export async function importCatalog(
  ctx: WriteContext,
  items: readonly ImportItem[],
  options: { dryRun?: boolean; concurrency?: number; onResult?: (result: ImportResult) => void } = {},
): Promise<ImportResult[]> {
  const firstBySku = new Map<string, number>();
  const results: ImportResult[] = new Array(items.length);
  const report = (result: ImportResult) => {
    results[result.index] = result;
    options.onResult?.(result);
  };

  async function one(item: ImportItem): Promise<void> {
    const { index, sku } = item;
    if (!item.input) return report({ index, sku, outcome: 'failed', errors: item.errors ?? {} });
    const earlier = sku === undefined ? undefined : firstBySku.get(sku);
    if (earlier !== undefined && earlier !== index) {
      return report({ index, sku, outcome: 'failed', errors: { [`products.${index}.sku`]: [`The sku appears earlier in the file (products.${earlier}).`] } });
    }
    try {
      const { outcome } = await upsertProduct(ctx, item.input, { dryRun: options.dryRun ?? false, path: `products.${index}` });
      report({ index, sku, outcome });
    } catch (err) {
      if (err instanceof ValidationFailed) return report({ index, sku, outcome: 'failed', errors: err.errors });
      if (err instanceof Conflict) return report({ index, sku, outcome: 'failed', errors: { [`products.${index}`]: [err.message] } });
      throw err;
    }
  }

  for (const item of items) if (item.sku !== undefined && !firstBySku.has(item.sku)) firstBySku.set(item.sku, item.index);
  let next = 0;
  const worker = async () => {
    while (next < items.length) await one(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.max(1, options.concurrency ?? 1) }, worker));
  if (!options.dryRun && results.some((r) => r.outcome === 'created' || r.outcome === 'updated')) await analyzeCatalog(ctx.db);
  return results;
}

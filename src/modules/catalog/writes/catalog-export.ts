import type { CatalogDb } from '../tables.ts';
import { findProductsBySku, type ExportedProductRow } from './bulk-repository.ts';
import { findRules, type StoredRule } from './rule-repository.ts';
import { findTrees, type StoredTree } from './tree-repository.ts';
import { refsById } from './upsert-plan.ts';

// The catalogue as a file: `{"products": [UpsertProductInput…]}`, without ids, so it imports anywhere
// (catalog-import.ts reads it back).

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

/**
 * Key order and child order are part of the format: the same catalogue always gives the same bytes. Every
 * field is written, defaults included; rules by id, their ends as CustomisationRefs.
 */
function exported(product: ExportedProductRow, tree: ReturnType<typeof indexTree>) {
  return {
    sku: product.sku,
    name: product.name,
    basePrice: Number(product.base_price),
    currency: product.currency,
    steps: (tree.steps.get(product.id) ?? []).map((s) => ({
      name: s.name,
      order: s.order,
      required: s.required,
      components: (tree.components.get(s.id) ?? []).map((c) => ({
        name: c.name,
        position: c.position,
        minSelections: c.min_selections,
        maxSelections: c.max_selections,
        customisations: (tree.customisations.get(c.id) ?? []).map((x) => ({
          name: x.name,
          type: x.type,
          price: Number(x.price),
          priceMode: x.price_mode,
        })),
      })),
    })),
    rules: (tree.rules.get(product.id) ?? []).map((r) => ({
      kind: r.kind,
      customisation: tree.refs.get(r.customisation_id)!,
      other: tree.refs.get(r.other_customisation_id)!,
      message: r.message,
    })),
  };
}

const indexTree = (tree: StoredTree, rules: readonly StoredRule[]) => ({
  steps: group(tree.steps, 'product_id'),
  components: group(tree.components, 'step_id'),
  customisations: group(tree.customisations, 'component_id'),
  rules: group(rules, 'product_id'),
  refs: refsById(tree),
});

/**
 * Writes the whole catalogue to `sink`, a product per line, in byte order of sku, from one snapshot
 * (a repeatable-read transaction), a page of products and four statements at a time.
 */
export async function exportCatalog(db: CatalogDb, sink: (chunk: string) => Promise<void>): Promise<number> {
  return db
    .transaction()
    .setIsolationLevel('repeatable read')
    .execute(async (trx) => {
      await sink('{"products":[');
      let count = 0;
      for (let after: string | null = null; ;) {
        const page = await findProductsBySku(trx, after, PAGE);
        if (page.length === 0) break;
        const ids = page.map((p) => p.id);
        const tree = indexTree(await findTrees(trx, ids), await findRules(trx, ids));
        await sink(page.map((p) => `${count++ === 0 ? '' : ','}\n${JSON.stringify(exported(p, tree))}`).join(''));
        after = page.at(-1)!.sku;
      }
      await sink(count === 0 ? ']}\n' : '\n]}\n');
      return count;
    });
}

import {
  analyzeCatalog,
  insertProductTrees,
  type CatalogDb,
  type NewProductTree,
} from '../../src/modules/catalog/tools.ts';

/**
 * A deterministic catalogue generator: the same seed always yields the same
 * products (names, skus, prices), so a benchmark dataset can be rebuilt exactly
 * and reseeding with the same seed adds nothing (skus collide and are skipped).
 */

export const CUSTOMISATION_TYPES = ['dropdown', 'colour', 'text', 'image', 'typography'] as const;

export interface CatalogShape {
  steps: number;
  components: number;
  customisations: number;
}
export const DEFAULT_SHAPE: CatalogShape = { steps: 5, components: 4, customisations: 3 };

/** mulberry32: tiny, fast, good enough for test data, and identical on every platform. */
export function createRng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The words generated names are made of (also the start of the plans test's larger vocabulary). */
export const ADJECTIVES = [
  'Classic',
  'Modern',
  'Rustic',
  'Urban',
  'Nordic',
  'Vintage',
  'Compact',
  'Deluxe',
  'Heritage',
  'Studio',
  'Coastal',
  'Signature',
];
export const MATERIALS = [
  'Oak',
  'Walnut',
  'Linen',
  'Leather',
  'Ceramic',
  'Steel',
  'Bamboo',
  'Velvet',
  'Canvas',
  'Marble',
  'Cotton',
  'Brass',
];
export const PRODUCTS = [
  'Dining Table',
  'Armchair',
  'Bookshelf',
  'Desk',
  'Sofa',
  'Bed Frame',
  'Lamp',
  'Backpack',
  'Wallet',
  'Mug',
  'Notebook',
  'T-Shirt',
  'Hoodie',
  'Sneaker',
  'Watch',
  'Phone Case',
];
const STEPS = [
  'Choose a size',
  'Pick a material',
  'Select a finish',
  'Add engraving',
  'Choose a colour',
  'Pick accessories',
  'Select packaging',
  'Add a gift note',
  'Choose hardware',
  'Select a pattern',
];
const COMPONENTS = [
  'Frame',
  'Top',
  'Legs',
  'Handle',
  'Strap',
  'Cover',
  'Lining',
  'Base',
  'Trim',
  'Label',
  'Buttons',
  'Print area',
];
const OPTIONS: Record<(typeof CUSTOMISATION_TYPES)[number], string[]> = {
  dropdown: ['Small', 'Medium', 'Large', 'Extra large', 'Standard', 'Premium'],
  colour: ['Midnight Blue', 'Forest Green', 'Charcoal', 'Ivory', 'Terracotta', 'Sand', 'Crimson'],
  text: ['Initials', 'Custom message', 'Name', 'Date', 'Monogram'],
  image: ['Logo upload', 'Photo print', 'Pattern upload', 'Artwork'],
  typography: ['Serif', 'Sans-serif', 'Script', 'Monospace', 'Slab'],
};

const pick = <T>(rng: () => number, items: readonly T[]): T => items[Math.floor(rng() * items.length)]!;

/** A price with two decimals; about a quarter fall below 1.00. */
function price(rng: () => number): string {
  const cents = rng() < 0.25 ? 1 + Math.floor(rng() * 99) : 100 + Math.floor(rng() * 24_900);
  return (cents / 100).toFixed(2);
}

export function generateProductTree(seed: number, index: number, shape: CatalogShape = DEFAULT_SHAPE): NewProductTree {
  // One stream per product: product i is the same whatever the batch it falls in.
  const rng = createRng((seed * 1_000_003 + index) >>> 0);
  return {
    name: `${pick(rng, ADJECTIVES)} ${pick(rng, MATERIALS)} ${pick(rng, PRODUCTS)}`,
    sku: `S${seed}-${String(index + 1).padStart(6, '0')}`,
    steps: Array.from({ length: shape.steps }, (_, s) => ({
      name: pick(rng, STEPS),
      order: s + 1,
      components: Array.from({ length: shape.components }, (_, c) => ({
        name: pick(rng, COMPONENTS),
        position: c + 1,
        customisations: Array.from({ length: shape.customisations }, () => {
          const type = pick(rng, CUSTOMISATION_TYPES);
          return { name: pick(rng, OPTIONS[type]), type, price: price(rng) };
        }),
      })),
    })),
  };
}

export interface SeedOptions {
  products: number;
  seed: number;
  batchSize?: number;
  /**
   * Batches in flight, each in its own transaction and connection (foreign-key checks hold one core per batch).
   * Products of different batches then interleave in id order; their content does not change.
   */
  concurrency?: number;
  shape?: CatalogShape;
  onProgress?: (done: number, total: number, inserted: number) => void;
}

/** Inserts the generated catalogue in batches, one transaction per batch. Returns products inserted. */
export async function seedCatalog(db: CatalogDb, options: SeedOptions): Promise<number> {
  const batchSize = options.batchSize ?? 500;
  const batches = Math.ceil(options.products / batchSize);
  let next = 0;
  let done = 0;
  let inserted = 0;
  let failed = false;
  // Statistics refreshed as the catalogue doubles: with autovacuum off or behind, the foreign-key checks of
  // later batches are otherwise planned for the empty tables they started as and slow down batch by batch.
  let analyzeAt = 1_000;
  const worker = async () => {
    while (!failed && next < options.products) {
      const start = next;
      const end = Math.min(options.products, start + batchSize);
      next = end;
      const trees = Array.from({ length: end - start }, (_, i) =>
        generateProductTree(options.seed, start + i, options.shape),
      );
      try {
        const count = await db.transaction().execute((trx) => insertProductTrees(trx, trees));
        inserted += count;
      } catch (err) {
        // The other workers stop taking batches; what they have in flight finishes or fails alone.
        failed = true;
        throw err;
      }
      done += end - start;
      if (done >= analyzeAt && done < options.products) {
        analyzeAt = done * 2;
        await analyzeCatalog(db);
      }
      options.onProgress?.(done, options.products, inserted);
    }
  };
  const workers = Array.from({ length: Math.max(1, Math.min(options.concurrency ?? 1, batches)) }, worker);
  const results = await Promise.allSettled(workers);
  const failure = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failure) throw failure.reason;
  return inserted;
}

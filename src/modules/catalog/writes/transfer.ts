import { isDatabaseUnavailable } from '../../../platform/db-errors.ts';
import { Conflict, ValidationFailed, type FieldErrors } from '../../../platform/errors.ts';
import type { CatalogDb } from '../tables.ts';
import { analyzeCatalog, findProductsBySku, type ExportedProductRow } from './bulk-repository.ts';
import { upsertProduct, type UpsertOutcome } from './products.ts';
import { findRules, type StoredRule } from './rule-repository.ts';
import type { WriteContext } from './transaction.ts';
import { findTrees, type StoredTree } from './tree-repository.ts';
import { refsById } from './upsert-plan.ts';
import type { ProductInput } from './inputs.ts';

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

export type ImportOutcome = UpsertOutcome | 'failed';

export interface ImportItem {
  index: number;
  sku: string | undefined;
  /** Its length in the file: what it holds in memory while it waits, roughly. */
  bytes?: number;
  /** Absent when the entry was refused before it reached the service (its shape, its size, a repeated sku). */
  input?: ProductInput;
  errors?: FieldErrors;
}

export interface ImportResult {
  index: number;
  sku: string | undefined;
  outcome: ImportOutcome;
  errors?: FieldErrors;
}

export interface ImportSummary {
  counts: Record<ImportOutcome, number>;
  /** The failed products with the lowest indexes, in file order (at most MAX_LISTED_FAILURES). */
  failures: ImportResult[];
  /** Failed products beyond those listed. */
  unlisted: number;
}

/** The database went away during an import: what was done until then, and why it stopped. */
export class ImportStopped extends Error {
  override name = 'ImportStopped';
  constructor(
    readonly summary: ImportSummary,
    override readonly cause: unknown,
  ) {
    super('The database became unavailable.');
  }
}

/** A file of a million bad entries gets the first ones listed, not a million lines. */
export const MAX_LISTED_FAILURES = 1000;
/** Entries read ahead of the workers, by their size in the file: bounds memory whatever the products' sizes. */
const MAX_BYTES_IN_FLIGHT = 32 * 1024 * 1024;

/** Waits before each new attempt at a product whose write found the database unavailable. */
const RETRY_DELAYS_MS = [500, 1000, 2000, 4000];

/** A PostgreSQL error about this statement (an SQLSTATE), not the connection: it fails one product only. */
function sqlState(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) ? code : undefined;
}

/** FATAL and PANIC end the session (a refused connection: the database closed, dropped, not accepting them). */
function endsSession(err: unknown): boolean {
  const severity = (err as { severity?: unknown } | null)?.severity;
  return severity === 'FATAL' || severity === 'PANIC';
}

/**
 * Upserts each product through the write service, one transaction each, a few at a time, reading the
 * items only as fast as they are written. Every product succeeds or fails on its own: invalid input, a
 * conflict or an error the database raises for that product's statements fails that product and the
 * rest go on. Only a database that is away stops the import (ImportStopped). Repeated skus are the
 * caller's to refuse (items come in file order; the service would race two upserts of one sku).
 */
export async function importCatalog(
  ctx: WriteContext,
  items: AsyncIterable<ImportItem> | Iterable<ImportItem>,
  options: {
    dryRun?: boolean;
    concurrency?: number;
    retryDelaysMs?: readonly number[];
    onResult?: (result: ImportResult) => void;
  } = {},
): Promise<ImportSummary> {
  const counts: Record<ImportOutcome, number> = { created: 0, updated: 0, unchanged: 0, failed: 0 };
  let failures: ImportResult[] = [];
  const byIndex = (a: ImportResult, b: ImportResult) => a.index - b.index;
  const report = (result: ImportResult) => {
    counts[result.outcome]++;
    if (result.outcome === 'failed') {
      failures.push(result);
      // Keep the lowest indexes whatever order the workers finish in: the summary does not depend on timing.
      if (failures.length > 2 * MAX_LISTED_FAILURES) failures = failures.sort(byIndex).slice(0, MAX_LISTED_FAILURES);
    }
    options.onResult?.(result);
  };
  const summary = (): ImportSummary => {
    const sorted = failures.sort(byIndex).slice(0, MAX_LISTED_FAILURES);
    return { counts: { ...counts }, failures: sorted, unlisted: counts.failed - sorted.length };
  };

  let stopped: { cause: unknown } | undefined;
  const retryDelays = options.retryDelaysMs ?? RETRY_DELAYS_MS;
  async function one(item: ImportItem): Promise<void> {
    const { index, sku } = item;
    if (!item.input) return report({ index, sku, outcome: 'failed', errors: item.errors ?? {} });
    for (let attempt = 0; ; attempt++) {
      try {
        const { outcome } = await upsertProduct(ctx, item.input, {
          dryRun: options.dryRun ?? false,
          path: `products.${index}`,
        });
        return report({ index, sku, outcome });
      } catch (err) {
        // A statement timeout or a dropped connection under load passes; a database that stays away stops the import.
        // The upsert is idempotent, so a retry after a commit that was not acknowledged changes nothing.
        if (!isDatabaseUnavailable(err) && !endsSession(err)) return failed(item, err);
        if (stopped || attempt >= retryDelays.length) {
          stopped ??= { cause: err };
          return;
        }
        await new Promise((resolve) => setTimeout(resolve, retryDelays[attempt]));
      }
    }
  }

  function failed({ index, sku }: ImportItem, err: unknown): void {
    if (err instanceof ValidationFailed) return report({ index, sku, outcome: 'failed', errors: err.errors });
    if (err instanceof Conflict)
      return report({ index, sku, outcome: 'failed', errors: { [`products.${index}`]: [err.message] } });
    const state = sqlState(err);
    if (state === undefined) throw err;
    const message = `The database refused this product: ${(err as Error).message} (SQLSTATE ${state}).`;
    report({ index, sku, outcome: 'failed', errors: { [`products.${index}`]: [message] } });
  }

  const iterator = Symbol.asyncIterator in items ? items[Symbol.asyncIterator]() : items[Symbol.iterator]();
  let bytesInFlight = 0;
  let running = 0;
  let released: (() => void) | undefined;
  let broken: { error: unknown } | undefined;
  // One turn at a time takes the next item, in file order, and waits until the bytes in flight allow it.
  let turns: Promise<unknown> = Promise.resolve();
  const next = (): Promise<ImportItem | undefined> => {
    const turn = turns.then(async () => {
      if (stopped || broken) return undefined;
      const result = await iterator.next();
      if (result.done) return undefined;
      const size = result.value.bytes ?? 0;
      while (running > 0 && bytesInFlight + size > MAX_BYTES_IN_FLIGHT)
        await new Promise<void>((resolve) => (released = resolve));
      bytesInFlight += size;
      running++;
      return result.value;
    });
    turns = turn.catch(() => undefined);
    return turn;
  };
  const worker = async () => {
    try {
      for (let item = await next(); item; item = await next()) {
        try {
          if (!stopped) await one(item);
        } finally {
          bytesInFlight -= item.bytes ?? 0;
          running--;
          released?.();
          released = undefined;
        }
      }
    } catch (error) {
      broken ??= { error };
    }
  };
  // Every worker finishes its product before the import returns or throws: nothing is left writing.
  await Promise.all(Array.from({ length: Math.max(1, options.concurrency ?? 1) }, worker));
  // Stopped early: the reader lets go of its file.
  if (stopped || broken) await Promise.resolve(iterator.return?.()).catch(() => undefined);
  if (broken) throw broken.error;
  if (stopped) throw new ImportStopped(summary(), stopped.cause);
  if (!options.dryRun && counts.created + counts.updated > 0) await analyzeCatalog(ctx.db);
  return summary();
}

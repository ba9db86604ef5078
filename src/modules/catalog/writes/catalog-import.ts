import { isDatabaseUnavailable } from '../../../platform/db-errors.ts';
import { Conflict, ValidationFailed, type FieldErrors } from '../../../platform/errors.ts';
import { analyzeCatalog } from './bulk-repository.ts';
import type { ProductInput } from './inputs.ts';
import { upsertProduct, type UpsertOutcome } from './products.ts';
import type { WriteContext } from './transaction.ts';

// A catalogue file's products (catalog-export.ts writes them), upserted one transaction each.

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

/** The results so far: counts, and the failures with the lowest indexes whatever order the workers finish in. */
function createTally(onResult: ((result: ImportResult) => void) | undefined) {
  const counts: Record<ImportOutcome, number> = { created: 0, updated: 0, unchanged: 0, failed: 0 };
  let failures: ImportResult[] = [];
  const byIndex = (a: ImportResult, b: ImportResult) => a.index - b.index;
  return {
    counts,
    report(result: ImportResult): void {
      counts[result.outcome]++;
      if (result.outcome === 'failed') {
        failures.push(result);
        // Keep the lowest indexes whatever order the workers finish in: the summary does not depend on timing.
        if (failures.length > 2 * MAX_LISTED_FAILURES) failures = failures.sort(byIndex).slice(0, MAX_LISTED_FAILURES);
      }
      onResult?.(result);
    },
    summary(): ImportSummary {
      const sorted = failures.sort(byIndex).slice(0, MAX_LISTED_FAILURES);
      return { counts: { ...counts }, failures: sorted, unlisted: counts.failed - sorted.length };
    },
  };
}
type Tally = ReturnType<typeof createTally>;

/** One product's failure, reported; an error that is not about this product is thrown. */
function reportFailure(tally: Tally, { index, sku }: ImportItem, err: unknown): void {
  if (err instanceof ValidationFailed) return tally.report({ index, sku, outcome: 'failed', errors: err.errors });
  if (err instanceof Conflict)
    return tally.report({ index, sku, outcome: 'failed', errors: { [`products.${index}`]: [err.message] } });
  const state = sqlState(err);
  if (state === undefined) throw err;
  const message = `The database refused this product: ${(err as Error).message} (SQLSTATE ${state}).`;
  tally.report({ index, sku, outcome: 'failed', errors: { [`products.${index}`]: [message] } });
}

/** Why an import stopped early: the database stayed away. */
type Stop = { stopped?: { cause: unknown } };

/** Upserts one item, retrying while the database is away; past the last retry it marks the import stopped. */
async function importOne(
  ctx: WriteContext,
  item: ImportItem,
  tally: Tally,
  stop: Stop,
  options: { dryRun: boolean; retryDelaysMs: readonly number[] },
): Promise<void> {
  const { index, sku } = item;
  if (!item.input) return tally.report({ index, sku, outcome: 'failed', errors: item.errors ?? {} });
  for (let attempt = 0; ; attempt++) {
    try {
      const { outcome } = await upsertProduct(ctx, item.input, { dryRun: options.dryRun, path: `products.${index}` });
      return tally.report({ index, sku, outcome });
    } catch (err) {
      // A statement timeout or a dropped connection under load passes; a database that stays away stops the import.
      // The upsert is idempotent, so a retry after a commit that was not acknowledged changes nothing.
      if (!isDatabaseUnavailable(err) && !endsSession(err)) return reportFailure(tally, item, err);
      if (stop.stopped || attempt >= options.retryDelaysMs.length) {
        stop.stopped ??= { cause: err };
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, options.retryDelaysMs[attempt]));
    }
  }
}

/**
 * Runs `concurrency` workers over the items, taking them in file order and no more at once than
 * MAX_BYTES_IN_FLIGHT allows (one at least). Every worker finishes its item before this returns; it
 * stops taking items once `isStopped()`, and an error of the items' source is thrown after that.
 */
async function runWorkers(
  items: AsyncIterable<ImportItem> | Iterable<ImportItem>,
  concurrency: number,
  isStopped: () => boolean,
  work: (item: ImportItem) => Promise<void>,
): Promise<void> {
  const iterator = Symbol.asyncIterator in items ? items[Symbol.asyncIterator]() : items[Symbol.iterator]();
  let bytesInFlight = 0;
  let running = 0;
  let released: (() => void) | undefined;
  let broken: { error: unknown } | undefined;
  // One turn at a time takes the next item, in file order, and waits until the bytes in flight allow it.
  let turns: Promise<unknown> = Promise.resolve();
  const next = (): Promise<ImportItem | undefined> => {
    const turn = turns.then(async () => {
      if (isStopped() || broken) return undefined;
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
          if (!isStopped()) await work(item);
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
  await Promise.all(Array.from({ length: Math.max(1, concurrency) }, worker));
  // Stopped early: the reader lets go of its file.
  if (isStopped() || broken) await Promise.resolve(iterator.return?.()).catch(() => undefined);
  if (broken) throw broken.error;
}

/**
 * Upserts each product (upsertProduct), one transaction each, a few at a time, reading the
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
  const tally = createTally(options.onResult);
  const stop: Stop = {};
  const each = { dryRun: options.dryRun ?? false, retryDelaysMs: options.retryDelaysMs ?? RETRY_DELAYS_MS };
  // Every worker finishes its product before the import returns or throws: nothing is left writing.
  await runWorkers(
    items,
    options.concurrency ?? 1,
    () => stop.stopped !== undefined,
    (item) => importOne(ctx, item, tally, stop, each),
  );
  if (stop.stopped) throw new ImportStopped(tally.summary(), stop.stopped.cause);
  const { counts } = tally;
  if (!options.dryRun && counts.created + counts.updated > 0) await analyzeCatalog(ctx.db);
  return tally.summary();
}

import fs from 'node:fs';
import path from 'node:path';
import { SingleBar } from 'cli-progress';
import { coerceInputValue, GraphQLInputObjectType } from 'graphql';
import {
  exportCatalog,
  importCatalog,
  ImportStopped,
  validSku,
  type ImportItem,
  type ImportSummary,
  type ProductInput,
} from '../../src/modules/catalog/tools.ts';
import { serviceSchema } from '../../src/modules/index.ts';
import { isDatabaseUnavailable } from '../../src/platform/db-errors.ts';
import type { FieldErrors } from '../../src/platform/errors.ts';
import { CliError, describeError, EXIT_USAGE, parseCommandLine, usageError } from '../lib/cli.ts';
import { isStatementTimeout, TENANT_OPTION, withTenantDatabase } from '../lib/database.ts';
import {
  CatalogFileError,
  readCatalogEntries,
  scanCatalogFile,
  SHAPE_MESSAGE,
  type CatalogEntry,
} from './catalog-file.ts';

const EXIT_SOME_FAILED = 1;
/** sysexits' EX_TEMPFAIL: the database was away; running the import again finishes it. */
const EXIT_DATABASE_UNAVAILABLE = 75;
const IMPORT_CONNECTIONS = 8;
// The file is read a product at a time (catalog-file.ts); 10,000 generated products make 44 MB.
const MAX_FILE_BYTES = 512 * 1024 * 1024;
// Bounds the skus remembered to refuse repeats (and the run: a million products take half an hour).
const MAX_PRODUCTS = 1_000_000;

export async function catalogExport(args: string[]): Promise<void> {
  const { values } = parseCommandLine(args, { out: { type: 'string' }, ...TENANT_OPTION });
  const out = values.out;
  await withTenantDatabase(values.tenant, async (ctx) => {
    // Written beside the target and renamed at the end: an interrupted export leaves no half file.
    const temp = out
      ? path.join(path.dirname(path.resolve(out)), `.${path.basename(out)}.${process.pid}.tmp`)
      : undefined;
    const stream = temp ? fs.createWriteStream(temp) : process.stdout;
    const write = (chunk: string) =>
      new Promise<void>((resolve, reject) => stream.write(chunk, (err) => (err ? reject(err) : resolve())));
    try {
      const count = await exportCatalog(ctx.database.db, write);
      if (temp) {
        await new Promise<void>((resolve, reject) =>
          (stream as fs.WriteStream).end((err?: Error | null) => (err ? reject(err) : resolve())),
        );
        fs.renameSync(temp, out!);
      }
      process.stderr.write(
        `Exported ${count} product${count === 1 ? '' : 's'} from ${ctx.target}${out ? ` to ${out}` : ''}.\n`,
      );
    } catch (err) {
      if (temp) fs.rmSync(temp, { force: true });
      throw err;
    }
  });
}

function fileError(file: string, err: unknown): CliError {
  if (err instanceof CatalogFileError) {
    return new CliError(
      err.message === SHAPE_MESSAGE ? `${file} ${SHAPE_MESSAGE}.` : `${file} is not valid JSON: ${err.message}.`,
      EXIT_USAGE,
    );
  }
  if ((err as { code?: unknown }).code !== undefined)
    return new CliError(`Cannot read ${file}: ${describeError(err)}.`, EXIT_USAGE);
  return err as CliError;
}

/** The whole file checked before anything is written: its size, its JSON, its shape. Returns how many products. */
async function checkCatalogFile(file: string): Promise<number> {
  let size: number;
  try {
    size = fs.statSync(file).size;
  } catch {
    throw new CliError(`Cannot read ${file}.`, EXIT_USAGE);
  }
  if (size > MAX_FILE_BYTES)
    throw new CliError(`${file} is larger than ${MAX_FILE_BYTES / 1024 / 1024} MiB.`, EXIT_USAGE);
  let products: number;
  try {
    products = await scanCatalogFile(file);
  } catch (err) {
    throw fileError(file, err);
  }
  if (products > MAX_PRODUCTS) {
    throw new CliError(
      `${file} has ${products} products; an import takes at most ${MAX_PRODUCTS.toLocaleString('en')}: split the file.`,
      EXIT_USAGE,
    );
  }
  return products;
}

const coveredBy = (refused: readonly string[], path: string) =>
  refused.some((r) => path === r || path.startsWith(`${r}.`));

/**
 * One entry checked against the SDL's UpsertProductInput, exactly as GraphQL would check the variable,
 * after the reader's size refusals (whose stand-in values add no errors of their own). A sku is
 * remembered trimmed, as the service stores it, so " D-9 " repeats "D-9".
 */
function toItem(entry: CatalogEntry, type: GraphQLInputObjectType, firstBySku: Map<string, number>): ImportItem {
  const { index, value, bytes } = entry;
  const at = `products.${index}`;
  const errors: FieldErrors = { ...entry.errors };
  if (value === undefined) return { index, sku: undefined, bytes, errors };
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { index, sku: undefined, bytes, errors: { [at]: ['Each product must be an object.'] } };
  }
  const refused = Object.keys(errors);
  const raw = (value as { sku?: unknown }).sku;
  const sku = typeof raw === 'string' && !coveredBy(refused, `${at}.sku`) ? raw : undefined;
  const input = coerceInputValue(value, type, (path, _value, error) => {
    const key = ['products', index, ...path].join('.');
    if (!coveredBy(refused, key)) (errors[key] ??= []).push(error.message);
  }) as ProductInput;
  // An invalid sku is refused by the import's own checks; only a valid one is looked up for repeats.
  const trimmed = sku === undefined ? undefined : validSku(sku);
  if (trimmed !== undefined) {
    const earlier = firstBySku.get(trimmed);
    if (earlier === undefined) firstBySku.set(trimmed, index);
    else (errors[`${at}.sku`] ??= []).push(`The sku appears earlier in the file (products.${earlier}).`);
  }
  return Object.keys(errors).length ? { index, sku, bytes, errors } : { index, sku, bytes, input };
}

async function* itemsOf(file: string): AsyncGenerator<ImportItem> {
  const type = serviceSchema().getType('UpsertProductInput') as GraphQLInputObjectType;
  const firstBySku = new Map<string, number>();
  try {
    for await (const entry of readCatalogEntries(file)) yield toItem(entry, type, firstBySku);
  } catch (err) {
    // Checked whole before the import began: it changed since.
    throw fileError(file, err);
  }
}

const shown = (sku: string) => JSON.stringify(sku.length > 80 ? `${sku.slice(0, 80)}…` : sku);

function printSummary({ counts, failures, unlisted }: ImportSummary, dryRun: boolean): void {
  const lines = [
    `${dryRun ? 'Dry run, nothing written: would have ' : ''}created ${counts.created}, updated ${counts.updated}, unchanged ${counts.unchanged}, failed ${counts.failed}.`,
  ];
  for (const r of failures) {
    lines.push(`products.${r.index}${r.sku === undefined ? '' : ` (sku ${shown(r.sku)})`}:`);
    for (const [at, messages] of Object.entries(r.errors ?? {})) lines.push(...messages.map((m) => `  ${at}: ${m}`));
  }
  if (unlisted > 0) lines.push(`… and ${unlisted} more failed product${unlisted === 1 ? '' : 's'}, not listed.`);
  process.stdout.write(`${lines.join('\n')}\n`);
}

function unavailable(err: unknown): CliError {
  // Our statement timeout: on a busy database a longer one lets the import through.
  const hint = isStatementTimeout(err) ? ' A busy database may need a longer CLI_STATEMENT_TIMEOUT_MS.' : '';
  return new CliError(
    `The database is unavailable (${describeError(err)}); the import stopped. Run it again when the database is back.${hint}`,
    EXIT_DATABASE_UNAVAILABLE,
  );
}

export async function catalogImport(args: string[]): Promise<number> {
  const { values, positionals } = parseCommandLine(
    args,
    { 'dry-run': { type: 'boolean', default: false }, ...TENANT_OPTION },
    1,
  );
  const file = positionals[0];
  if (file === undefined) throw usageError('catalog:import needs the file to import (see catalog:export).');
  const dryRun = values['dry-run'];
  const total = await checkCatalogFile(file);

  try {
    return await withTenantDatabase(
      values.tenant,
      async (ctx) => {
        const bar = process.stderr.isTTY
          ? new SingleBar({ stream: process.stderr, format: 'importing [{bar}] {value}/{total} products, {eta}s left' })
          : undefined;
        bar?.start(total, 0);
        let summary: ImportSummary;
        try {
          summary = await importCatalog(
            {
              db: ctx.database.db,
              logger: ctx.logger,
              limits: ctx.config.catalog.writeLimits,
              currency: ctx.config.catalog.currency,
              actor: { userId: null, tokenId: null, via: 'cli' },
            },
            itemsOf(file),
            // Each product commits on its own, and a commit waits for the disk: several at once share the flush.
            // The embedded database runs one statement at a time.
            {
              dryRun,
              concurrency: ctx.database.kind === 'postgres' ? IMPORT_CONNECTIONS : 1,
              onResult: () => bar?.increment(),
            },
          );
        } catch (err) {
          if (!(err instanceof ImportStopped)) throw err;
          bar?.stop();
          // What was done before it stopped, so that nobody has to guess.
          printSummary(err.summary, dryRun);
          throw unavailable(err.cause);
        } finally {
          bar?.stop();
        }
        printSummary(summary, dryRun);
        return summary.counts.failed > 0 ? EXIT_SOME_FAILED : 0;
      },
      { poolSize: IMPORT_CONNECTIONS },
    );
  } catch (err) {
    if (!(err instanceof CliError) && isDatabaseUnavailable(err)) throw unavailable(err);
    throw err;
  }
}

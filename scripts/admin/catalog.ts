import fs from 'node:fs';
import path from 'node:path';
import { SingleBar } from 'cli-progress';
import { coerceInputValue, GraphQLInputObjectType } from 'graphql';
import { exportCatalog, importCatalog, type ImportItem, type ImportResult } from '../../src/modules/catalog/transfer.ts';
import type { ProductInput } from '../../src/modules/catalog/write-validation.ts';
import { serviceSchema } from '../../src/modules/index.ts';
import { CliError, EXIT_USAGE, parseCommandLine, usageError } from '../lib/cli.ts';
import { ensureMigrated, withDatabase } from '../lib/database.ts';

export const CATALOG_USAGE = `  catalog:export [--out FILE]
      Writes the whole catalogue as {"products": [...]} (UpsertProductInput, no ids),
      ordered by sku, to FILE or stdout.
  catalog:import FILE [--dry-run]
      Upserts each product of such a file by sku, one transaction per product, and
      prints what was created, updated, unchanged or failed (with the reasons).
      --dry-run does all of it and writes nothing. Exit 0: all imported; 1: some
      failed; 2: the file could not be read or is not such a file.
`;

const EXIT_SOME_FAILED = 1;
const IMPORT_CONNECTIONS = 8;
// The file is parsed whole (10,000 generated products make 44 MB).
const MAX_FILE_BYTES = 512 * 1024 * 1024;

export async function catalogExport(args: string[]): Promise<void> {
  const { values } = parseCommandLine(args, { out: { type: 'string' } });
  const out = values.out;
  await withDatabase(async (ctx) => {
    await ensureMigrated(ctx);
    // Written beside the target and renamed at the end: an interrupted export leaves no half file.
    const temp = out ? path.join(path.dirname(path.resolve(out)), `.${path.basename(out)}.${process.pid}.tmp`) : undefined;
    const stream = temp ? fs.createWriteStream(temp) : process.stdout;
    const write = (chunk: string) =>
      new Promise<void>((resolve, reject) => (stream.write(chunk, (err) => (err ? reject(err) : resolve()))));
    try {
      const count = await exportCatalog(ctx.database.db, write);
      if (temp) {
        await new Promise<void>((resolve, reject) => (stream as fs.WriteStream).end((err?: Error | null) => (err ? reject(err) : resolve())));
        fs.renameSync(temp, out!);
      }
      process.stderr.write(`Exported ${count} product${count === 1 ? '' : 's'} from ${ctx.target}${out ? ` to ${out}` : ''}.\n`);
    } catch (err) {
      if (temp) fs.rmSync(temp, { force: true });
      throw err;
    }
  });
}

function readCatalogFile(file: string): unknown[] {
  let size: number;
  try {
    size = fs.statSync(file).size;
  } catch {
    throw new CliError(`Cannot read ${file}.`, EXIT_USAGE);
  }
  if (size > MAX_FILE_BYTES) throw new CliError(`${file} is larger than ${MAX_FILE_BYTES / 1024 / 1024} MiB.`, EXIT_USAGE);
  let parsed: unknown;
  try {
    parsed = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (err) {
    throw new CliError(`${file} is not valid JSON: ${(err as Error).message}`, EXIT_USAGE);
  }
  const products = (parsed as { products?: unknown } | null)?.products;
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed) || !Array.isArray(products)) {
    throw new CliError(`${file} must hold a JSON object {"products": [...]}.`, EXIT_USAGE);
  }
  return products;
}

/** Each entry checked against the SDL's UpsertProductInput, exactly as GraphQL would check the variable. */
function toItems(products: unknown[]): ImportItem[] {
  const type = serviceSchema().getType('UpsertProductInput') as GraphQLInputObjectType;
  return products.map((entry, index) => {
    const sku = typeof (entry as { sku?: unknown } | null)?.sku === 'string' ? (entry as { sku: string }).sku : undefined;
    const errors: Record<string, string[]> = {};
    const input = coerceInputValue(entry, type, (at, _value, error) => {
      (errors[['products', index, ...at].join('.')] ??= []).push(error.message);
    }) as ProductInput;
    return Object.keys(errors).length ? { index, sku, errors } : { index, sku, input };
  });
}

function printSummary(results: readonly ImportResult[], dryRun: boolean): void {
  const count = (o: ImportResult['outcome']) => results.filter((r) => r.outcome === o).length;
  const lines = [
    `${dryRun ? 'Dry run, nothing written: would have ' : ''}created ${count('created')}, updated ${count('updated')}, unchanged ${count('unchanged')}, failed ${count('failed')}.`,
  ];
  for (const r of results.filter((x) => x.outcome === 'failed')) {
    lines.push(`products.${r.index}${r.sku === undefined ? '' : ` (sku ${JSON.stringify(r.sku)})`}:`);
    for (const [at, messages] of Object.entries(r.errors ?? {})) lines.push(...messages.map((m) => `  ${at}: ${m}`));
  }
  process.stdout.write(`${lines.join('\n')}\n`);
}

export async function catalogImport(args: string[]): Promise<number> {
  const { values, positionals } = parseCommandLine(args, { 'dry-run': { type: 'boolean', default: false } }, 1);
  const file = positionals[0];
  if (file === undefined) throw usageError('catalog:import needs the file to import (see catalog:export).');
  const dryRun = values['dry-run'];
  const items = toItems(readCatalogFile(file));

  return withDatabase(async (ctx) => {
    await ensureMigrated(ctx);
    const bar = process.stderr.isTTY ? new SingleBar({ stream: process.stderr, format: 'importing [{bar}] {value}/{total} products, {eta}s left' }) : undefined;
    bar?.start(items.length, 0);
    const results = await importCatalog(
      { db: ctx.database.db, logger: ctx.logger, limits: ctx.config.catalogWriteLimits, actor: { userId: null, tokenId: null, via: 'cli' } },
      items,
      // Each product commits on its own, and a commit waits for the disk: several at once share the flush.
      // The embedded database runs one statement at a time.
      { dryRun, concurrency: ctx.database.kind === 'postgres' ? IMPORT_CONNECTIONS : 1, onResult: () => bar?.increment() },
    ).finally(() => bar?.stop());
    printSummary(results, dryRun);
    return results.some((r) => r.outcome === 'failed') ? EXIT_SOME_FAILED : 0;
  }, { poolSize: IMPORT_CONNECTIONS });
}

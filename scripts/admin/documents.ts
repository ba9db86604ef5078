/** The trusted-document commands of `npm run admin` (admin.ts loads this file only for them). */
import fs from 'node:fs';
import { listDocuments, pushDocuments, removeDocuments } from '../../src/modules/documents/tools.ts';
import { serviceSchema } from '../../src/modules/index.ts';
import { CliError, EXIT_FAILURE, EXIT_USAGE, formatTable, parseCommandLine, usageError } from '../lib/cli.ts';
import { TENANT_OPTION, withTenantDatabase } from '../lib/database.ts';

// A manifest is a few hundred documents; anything this large is not one.
const MAX_FILE_BYTES = 16 * 1024 * 1024;

/** `{ "<sha256 hex>": "<document>" }`, as GraphQL Codegen's client preset writes persisted-documents.json. */
function readManifest(file: string): Record<string, unknown> {
  let text: string;
  try {
    if (fs.statSync(file).size > MAX_FILE_BYTES) {
      throw new CliError(`${file} is larger than ${MAX_FILE_BYTES / 1024 / 1024} MiB.`, EXIT_USAGE);
    }
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    if (err instanceof CliError) throw err;
    throw new CliError(`Cannot read ${file}.`, EXIT_USAGE);
  }
  let manifest: unknown;
  try {
    manifest = JSON.parse(text);
  } catch (err) {
    throw new CliError(`${file} is not valid JSON: ${(err as Error).message}.`, EXIT_USAGE);
  }
  if (typeof manifest !== 'object' || manifest === null || Array.isArray(manifest)) {
    throw new CliError(`${file} must hold one JSON object of "<sha256 hex>": "<document>" entries.`, EXIT_USAGE);
  }
  return manifest as Record<string, unknown>;
}

export async function documentsPush(args: string[]): Promise<number> {
  const { values, positionals } = parseCommandLine(args, { ...TENANT_OPTION }, 1);
  const file = positionals[0];
  if (file === undefined) throw usageError('The manifest file is required: documents:push FILE.');
  const manifest = readManifest(file);
  return withTenantDatabase(values.tenant, async (ctx) => {
    const result = await pushDocuments(ctx.database.db, manifest, serviceSchema(), ctx.config.graphql);
    for (const { hash, reason } of result.refused) process.stdout.write(`refused ${hash}: ${reason}\n`);
    if (result.refused.length > 0) {
      process.stderr.write(
        `Refused ${result.refused.length} of ${Object.keys(manifest).length} documents; nothing was written to ${ctx.target}.\n`,
      );
      return EXIT_FAILURE;
    }
    if (result.overBounds) {
      process.stderr.write(`${result.overBounds} Nothing was written to ${ctx.target}.\n`);
      return EXIT_FAILURE;
    }
    for (const hash of result.added) process.stdout.write(`added ${hash}\n`);
    process.stderr.write(
      `Pushed ${result.added.length} new and ${result.unchanged.length} unchanged documents to ${ctx.target}.\n`,
    );
    return 0;
  });
}

export async function documentsList(args: string[]): Promise<void> {
  const { values } = parseCommandLine(args, { ...TENANT_OPTION });
  await withTenantDatabase(values.tenant, async (ctx) => {
    const rows = await listDocuments(ctx.database.db);
    const summary = (body: string) => {
      const line = body.replace(/\s+/g, ' ').trim();
      return line.length > 60 ? `${line.slice(0, 59)}…` : line;
    };
    process.stdout.write(
      formatTable(
        ['hash', 'created', 'bytes', 'document'],
        rows.map((r) => [
          r.hash,
          r.created_at.toISOString().replace(/\.\d{3}Z$/, 'Z'),
          String(Buffer.byteLength(r.body)),
          summary(r.body),
        ]),
      ),
    );
    process.stderr.write(`${rows.length} trusted documents in ${ctx.target}.\n`);
  });
}

export async function documentsRemove(args: string[]): Promise<number> {
  const { values, positionals } = parseCommandLine(args, { ...TENANT_OPTION }, 1000);
  if (positionals.length === 0) throw usageError('Name the documents to remove: documents:remove HASH...');
  const hashes = positionals.map((h) => h.replace(/^sha256:/, '').toLowerCase());
  return withTenantDatabase(values.tenant, async (ctx) => {
    const removed = new Set(await removeDocuments(ctx.database.db, hashes));
    for (const hash of hashes) process.stdout.write(`${removed.has(hash) ? 'removed' : 'unknown'} ${hash}\n`);
    process.stderr.write(`Removed ${removed.size} of ${hashes.length} documents from ${ctx.target}.\n`);
    return removed.size === hashes.length ? 0 : EXIT_FAILURE;
  });
}

import { createHash } from 'node:crypto';
import { GraphQLError, parse, type GraphQLSchema } from 'graphql';
import type { Kysely } from 'kysely';
import { documentRefusals, type LimitsConfig } from '../../graphql/plugins/use-graphql-limits.ts';
import {
  deleteDocuments,
  findExistingHashes,
  insertDocuments,
  listDocumentRows,
  lockDocuments,
  measureDocuments,
  type DocumentRow,
} from './repository.ts';
import type { DocumentTables } from './tables.ts';

// Every instance holds a tenant's documents in memory once one is asked for (store.ts): these bound what
// one tenant can make it hold. A client preset's manifest of a large storefront has a few hundred.
export const MAX_DOCUMENTS_PER_TENANT = 2000;
export const MAX_BYTES_PER_TENANT = 4 * 1024 * 1024;

const HASH = /^[0-9a-f]{64}$/;

export const isDocumentHash = (hash: string) => HASH.test(hash);

export const sha256Hex = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

/** Why this manifest entry cannot be trusted, or undefined: the checks a request with it would pass before running. */
export function checkEntry(
  schema: GraphQLSchema,
  limits: LimitsConfig,
  hash: string,
  body: unknown,
): string | undefined {
  if (!isDocumentHash(hash)) return 'The key is not a SHA-256 hash (64 lowercase hexadecimal digits).';
  if (typeof body !== 'string' || body.trim() === '') return 'The document is not a non-empty string.';
  const actual = sha256Hex(body);
  if (actual !== hash) return `The hash does not match the document (its SHA-256 is ${actual}).`;
  let document;
  try {
    document = parse(body);
  } catch (err) {
    if (err instanceof GraphQLError) return err.message;
    throw err;
  }
  const refusals = documentRefusals(schema, document, body, limits);
  return refusals.length > 0 ? refusals.join(' ') : undefined;
}

export interface PushResult {
  added: string[];
  unchanged: string[];
  /** Entries that failed their checks: nothing was written. */
  refused: { hash: string; reason: string }[];
  /** Set when the entries passed but the tenant would exceed its bounds: nothing was written. */
  overBounds?: string;
}

/**
 * Adds a manifest's documents to the current tenant, all or none: a client build needs every document
 * it was built with. Documents already there stay; none is removed (documents:remove does that).
 */
export async function pushDocuments(
  db: Kysely<DocumentTables>,
  manifest: Record<string, unknown>,
  schema: GraphQLSchema,
  limits: LimitsConfig,
): Promise<PushResult> {
  const refused: PushResult['refused'] = [];
  const entries: { hash: string; body: string }[] = [];
  for (const [hash, body] of Object.entries(manifest)) {
    const reason = checkEntry(schema, limits, hash, body);
    if (reason) refused.push({ hash, reason });
    else entries.push({ hash, body: body as string });
  }
  if (refused.length > 0) return { added: [], unchanged: [], refused };
  return db.transaction().execute(async (trx) => {
    await lockDocuments(trx);
    const existing = await findExistingHashes(
      trx,
      entries.map((e) => e.hash),
    );
    const fresh = entries.filter((e) => !existing.has(e.hash));
    const held = await measureDocuments(trx);
    const count = held.count + fresh.length;
    const bytes = held.bytes + fresh.reduce((sum, e) => sum + Buffer.byteLength(e.body), 0);
    const result = { added: [], unchanged: [...existing], refused: [] };
    if (count > MAX_DOCUMENTS_PER_TENANT) {
      return {
        ...result,
        overBounds: `The tenant would hold ${count} trusted documents; at most ${MAX_DOCUMENTS_PER_TENANT} are kept (remove unused ones with documents:remove).`,
      };
    }
    if (bytes > MAX_BYTES_PER_TENANT) {
      return {
        ...result,
        overBounds: `The tenant's trusted documents would take ${bytes} bytes; at most ${MAX_BYTES_PER_TENANT} are kept (remove unused ones with documents:remove).`,
      };
    }
    await insertDocuments(trx, fresh);
    return { ...result, added: fresh.map((e) => e.hash) };
  });
}

export const listDocuments = (db: Kysely<DocumentTables>): Promise<DocumentRow[]> => listDocumentRows(db);

export const removeDocuments = (db: Kysely<DocumentTables>, hashes: readonly string[]): Promise<string[]> =>
  deleteDocuments(db, hashes);

import { sql, type Kysely } from 'kysely';
import type { DocumentTables } from './tables.ts';

// Every statement runs inside the caller's tenant: row-level security shows and accepts only its rows.

export interface DocumentRow {
  hash: string;
  body: string;
  created_at: Date;
}

/** The tenant's documents, by hash: what an instance keeps in memory, and `documents:list`. */
export function listDocumentRows(db: Kysely<DocumentTables>): Promise<DocumentRow[]> {
  return db.selectFrom('trusted_documents').select(['hash', 'body', 'created_at']).orderBy('hash').execute();
}

/** How many documents the tenant holds, and their bytes as UTF-8. */
export async function measureDocuments(db: Kysely<DocumentTables>): Promise<{ count: number; bytes: number }> {
  const row = await db
    .selectFrom('trusted_documents')
    .select([sql<string>`count(*)`.as('count'), sql<string>`coalesce(sum(octet_length(body)), 0)`.as('bytes')])
    .executeTakeFirstOrThrow();
  return { count: Number(row.count), bytes: Number(row.bytes) };
}

/** Which of these hashes the tenant already holds. */
export async function findExistingHashes(db: Kysely<DocumentTables>, hashes: readonly string[]): Promise<Set<string>> {
  if (hashes.length === 0) return new Set();
  const rows = await db.selectFrom('trusted_documents').select('hash').where('hash', 'in', hashes).execute();
  return new Set(rows.map((r) => r.hash));
}

/** A hash names its text, so an existing row already holds the same body. */
export async function insertDocuments(
  db: Kysely<DocumentTables>,
  documents: readonly { hash: string; body: string }[],
): Promise<number> {
  if (documents.length === 0) return 0;
  const rows = await db
    .insertInto('trusted_documents')
    .values(documents.map(({ hash, body }) => ({ hash, body })))
    .onConflict((oc) => oc.columns(['tenant_id', 'hash']).doNothing())
    .returning('hash')
    .execute();
  return rows.length;
}

/** Returns the hashes removed. */
export async function deleteDocuments(db: Kysely<DocumentTables>, hashes: readonly string[]): Promise<string[]> {
  if (hashes.length === 0) return [];
  const rows = await db.deleteFrom('trusted_documents').where('hash', 'in', hashes).returning('hash').execute();
  return rows.map((r) => r.hash);
}

/** Serialises pushes of one tenant, so two cannot both pass the bounds on the same free room. */
export async function lockDocuments(db: Kysely<DocumentTables>): Promise<void> {
  await sql`SELECT pg_advisory_xact_lock(hashtext('trusted_documents/' || coalesce(app_tenant()::text, '')))`.execute(
    db,
  );
}

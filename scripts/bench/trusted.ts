import { createHash } from 'node:crypto';
import { pushDocuments } from '../../src/modules/documents/tools.ts';
import { loadConfig } from '../../src/config.ts';
import { serviceSchema, type Database } from '../../src/modules/index.ts';
import { createPostgresDatabase } from '../../src/platform/db.ts';
import { createLogger } from '../../src/platform/logger.ts';
import { DEFAULT_TENANT_ID, withTenant } from '../../src/platform/tenancy.ts';

/**
 * `--trusted`: the service gets its requests as trusted documents (docs/trusted-documents.md), the
 * documents registered beforehand as `npm run admin -- documents:push` registers them.
 */

// A document's id is the SHA-256 of its text, as the client preset's manifest keys it.
const sha256Hex = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

interface FullBody {
  query: string;
  variables?: unknown;
  operationName?: string;
}

/** The same request by id: the document's hash in place of its text, the variables and operation name kept. */
export function toTrustedBody(body: string): string {
  const { query, ...rest } = JSON.parse(body) as FullBody;
  return JSON.stringify({ documentId: `sha256:${sha256Hex(query)}`, ...rest });
}

/** The manifest of the documents some full bodies send, `{ "<sha256 hex>": "<document>" }`. */
export function manifestOf(bodies: Iterable<string>): Record<string, string> {
  const manifest: Record<string, string> = {};
  for (const body of bodies) {
    const { query } = JSON.parse(body) as FullBody;
    manifest[sha256Hex(query)] = query;
  }
  return manifest;
}

/**
 * Registers a manifest in the bench database's default tenant (the bench's catalogue, users and tokens
 * are that tenant's) with the documents:push command's own function, its checks included. Documents a
 * former run registered stay, unchanged.
 */
export async function pushBenchDocuments(
  url: string,
  manifest: Record<string, string>,
  log: (line: string) => void,
): Promise<void> {
  const logger = createLogger('silent');
  const config = loadConfig({ DATABASE_URL: url, LOG_LEVEL: 'silent' });
  const database = createPostgresDatabase<Database>({ databaseUrl: url, poolSize: 1, logger });
  try {
    const result = await withTenant(DEFAULT_TENANT_ID, () =>
      pushDocuments(database.db, manifest, serviceSchema(), config.graphql),
    );
    const refused = result.refused.map(({ hash, reason }) => `${hash}: ${reason}`);
    if (result.overBounds) refused.push(result.overBounds);
    if (refused.length > 0) throw new Error(`trusted documents refused:\n${refused.join('\n')}`);
    log(`trusted documents: ${result.added.length} added, ${result.unchanged.length} already registered`);
  } finally {
    await database.close();
  }
}

import type { Kysely } from 'kysely';
import { LRUCache } from 'lru-cache';
import type { ChangeFeed } from '../../platform/notifications.ts';
import { currentTenant, splitTenantPayload } from '../../platform/tenancy.ts';
import { listDocumentRows } from './repository.ts';
import { isDocumentHash } from './service.ts';
import type { DocumentTables } from './tables.ts';

/** Sent by the database (migration 0023) once per statement that changes a tenant's trusted documents. */
export const DOCUMENTS_CHANGED = 'documents_changed';

/** Without the change feed, or while it is down, a tenant's documents are read again after this long. */
const UNFOLLOWED_TTL_MS = 5_000;
/** Bytes of document text held for all tenants together; the least recently asked tenant goes first. */
const MAX_HELD_BYTES = 64 * 1024 * 1024;

interface Held {
  documents: Map<string, string>;
  bytes: number;
  loadedAt: number;
}

/** The trusted documents of the request's tenant, by hash. */
export interface TrustedDocumentStore {
  /** The document's text; undefined for a hash the tenant has not registered. */
  get(hash: string): string | undefined | Promise<string | undefined>;
}

/**
 * A tenant's documents are read in one statement when one is first asked for (a tenant has a few hundred
 * at most: service.ts bounds them) and held until `documents_changed` names the tenant. An unknown hash is
 * answered from memory: a client spamming random ids costs no statement. Concurrent first requests share
 * one read.
 */
export function createTrustedDocumentStore(deps: {
  db: Kysely<DocumentTables>;
  changes?: ChangeFeed | undefined;
}): TrustedDocumentStore {
  const { db, changes } = deps;
  const held = new LRUCache<string, Held>({ maxSize: MAX_HELD_BYTES, sizeCalculation: (h) => h.bytes + 1 });
  const loading = new Map<string, Promise<Held>>();
  // A read that started before a change must not keep what it read: generations, as in the token cache.
  let generation = 0;
  const tenantGenerations = new Map<string, number>();
  const markOf = (tenant: string) => `${generation}/${tenantGenerations.get(tenant) ?? 0}`;
  const dropAll = () => {
    generation++;
    tenantGenerations.clear();
    held.clear();
    loading.clear();
  };
  const drop = (tenant: string) => {
    tenantGenerations.set(tenant, (tenantGenerations.get(tenant) ?? 0) + 1);
    held.delete(tenant);
    loading.delete(tenant);
  };
  changes?.on(DOCUMENTS_CHANGED, (raw) => {
    const { tenant } = splitTenantPayload(raw);
    if (tenant === undefined) dropAll();
    else drop(tenant);
  });
  changes?.onState(dropAll);

  const fresh = (h: Held) => (changes?.up ?? false) || Date.now() - h.loadedAt < UNFOLLOWED_TTL_MS;

  async function load(tenant: string): Promise<Held> {
    const mark = markOf(tenant);
    const loadedAt = Date.now();
    const rows = await listDocumentRows(db);
    const documents = new Map(rows.map((r) => [r.hash, r.body]));
    // Held as JavaScript strings: two bytes a code unit.
    const h = { documents, bytes: rows.reduce((sum, r) => sum + r.body.length * 2, 0), loadedAt };
    if (markOf(tenant) === mark) held.set(tenant, h);
    return h;
  }

  return {
    get(hash) {
      if (!isDocumentHash(hash)) return undefined;
      const tenant = currentTenant() ?? '';
      const h = held.get(tenant);
      if (h && fresh(h)) return h.documents.get(hash);
      let pending = loading.get(tenant);
      if (!pending) {
        const started = load(tenant).finally(() => {
          if (loading.get(tenant) === started) loading.delete(tenant);
        });
        loading.set(tenant, started);
        pending = started;
      }
      return pending.then((loaded) => loaded.documents.get(hash));
    },
  };
}

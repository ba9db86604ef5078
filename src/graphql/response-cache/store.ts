import { LRUCache } from 'lru-cache';

export interface Entry {
  /** The answer's body as sent: what the byte bound counts is what the store holds. */
  json: string;
  /** Sent with it on every hit: its ETag and Last-Modified. */
  headers: Readonly<Record<string, string>>;
  bytes: number;
  /** What the access log and metrics call the operation, which a hit never executes to learn. */
  operationName: string | null | undefined;
  /** What it was read from: a change to one of them drops it. */
  tags: readonly string[];
  /** The token whose request stored it: admission bounds each token's share. */
  owner: string;
}

/**
 * The answers, least recently used first out, with two indexes kept in step: the keys that read each
 * tag (a change drops exactly those) and the bytes each token's answers hold (admission reads them).
 */
export function createEntryStore(options: {
  maxEntries: number;
  maxBytes: number;
  ttlMs: number;
  onEvict?: () => void;
}) {
  const byTag = new Map<string, Set<string>>();
  const bytesByOwner = new Map<string, number>();
  const forget = (key: string, entry: Entry) => {
    for (const tag of entry.tags) {
      const keys = byTag.get(tag);
      if (!keys) continue;
      keys.delete(key);
      if (keys.size === 0) byTag.delete(tag);
    }
    const left = (bytesByOwner.get(entry.owner) ?? 0) - entry.bytes;
    if (left > 0) bytesByOwner.set(entry.owner, left);
    else bytesByOwner.delete(entry.owner);
  };
  const entries = new LRUCache<string, Entry>({
    max: options.maxEntries,
    maxSize: options.maxBytes,
    sizeCalculation: (entry) => entry.bytes,
    ttl: options.ttlMs,
    dispose: (entry, key, reason) => {
      if (reason === 'evict') options.onEvict?.();
      forget(key, entry);
    },
  });

  return {
    get: (key: string) => entries.get(key),
    get size() {
      return entries.size;
    },
    get bytes() {
      return entries.calculatedSize;
    },
    bytesOf: (owner: string) => bytesByOwner.get(owner) ?? 0,
    hasRoomFor: (bytes: number) =>
      entries.size < options.maxEntries && entries.calculatedSize + bytes <= options.maxBytes,
    set(key: string, entry: Entry) {
      entries.set(key, entry);
      if (!entries.has(key)) return;
      for (const tag of entry.tags) {
        let keys = byTag.get(tag);
        if (!keys) byTag.set(tag, (keys = new Set()));
        keys.add(key);
      }
      bytesByOwner.set(entry.owner, (bytesByOwner.get(entry.owner) ?? 0) + entry.bytes);
    },
    /** Drops the answers that read any of these tags; how many. */
    dropTagged(tags: readonly string[]): number {
      let dropped = 0;
      for (const tag of tags) for (const key of [...(byTag.get(tag) ?? [])]) if (entries.delete(key)) dropped++;
      return dropped;
    },
    clear() {
      entries.clear();
      byTag.clear();
      bytesByOwner.clear();
    },
  };
}

export type EntryStore = ReturnType<typeof createEntryStore>;

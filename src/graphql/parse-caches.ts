import type { DocumentNode } from 'graphql';
import { LRUCache } from 'lru-cache';

/** Total document text Yoga's parse caches may hold (JS strings: two bytes a character). */
const CACHED_DOCUMENT_CHARS = 4 * 1024 * 1024;

/** A cache keyed by document text, bounded by the total text it holds, not only by entries. */
export const createDocumentCache = <T extends NonNullable<unknown>>() =>
  new LRUCache<string, T>({
    max: 1024,
    ttl: 3_600_000,
    maxSize: CACHED_DOCUMENT_CHARS,
    sizeCalculation: (_value, key) => Math.max(1, key.length),
  });

/** Yoga's default keeps 1024 documents of any size (a gigabyte of 1 MB bodies); these bound the total text instead. */
export function createParseCaches() {
  return { documentCache: createDocumentCache<DocumentNode>(), errorCache: createDocumentCache<object>() };
}

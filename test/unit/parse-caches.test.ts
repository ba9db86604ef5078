import { parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import { createParseCaches } from '../../src/graphql/parse-caches.ts';

describe('parse caches', () => {
  it('hold small documents and never more than 4 Mi characters of document text', () => {
    const { documentCache } = createParseCaches();
    const small = '{ __typename }';
    documentCache.set(small, parse(small));
    expect(documentCache.get(small)).toBeDefined();

    // Eight padded 1 MB documents: the cache keeps at most four of them.
    const padded = (i: number) => `{ __typename }${' '.repeat(1024 * 1024 - 20)}#${i}`;
    for (let i = 0; i < 8; i++) documentCache.set(padded(i), parse('{ __typename }'));
    const kept = Array.from({ length: 8 }, (_, i) => documentCache.get(padded(i))).filter(Boolean).length;
    expect(kept).toBeLessThanOrEqual(4);
    expect(kept).toBeGreaterThan(0);
    expect(documentCache.calculatedSize).toBeLessThanOrEqual(4 * 1024 * 1024);
  });
});

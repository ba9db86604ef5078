import { describe, expect, it } from 'vitest';
import { createEntryStore, type Entry } from '../../../src/graphql/response-cache/store.ts';

const entry = (bytes: number, tags: string[] = [], owner = 'a'): Entry => ({
  json: 'x'.repeat(bytes),
  headers: {},
  bytes,
  operationName: null,
  tags,
  owner,
});

describe('the entry store', () => {
  it('drops exactly the answers that read a changed tag', () => {
    const store = createEntryStore({ maxEntries: 10, maxBytes: 1_000, ttlMs: 60_000 });
    store.set('p1', entry(10, ['product:1', 'products']));
    store.set('p2', entry(10, ['product:2']));
    expect(store.dropTagged(['product:1'])).toBe(1);
    expect(store.get('p1')).toBeUndefined();
    expect(store.get('p2')).toBeDefined();
    expect(store.dropTagged(['products'])).toBe(0);
  });

  it('counts each token’s bytes as answers come and go, evicted, replaced or cleared', () => {
    let evicted = 0;
    const store = createEntryStore({ maxEntries: 10, maxBytes: 100, ttlMs: 60_000, onEvict: () => evicted++ });
    store.set('a1', entry(40, [], 'a'));
    store.set('b1', entry(30, [], 'b'));
    expect([store.bytesOf('a'), store.bytesOf('b'), store.bytes]).toEqual([40, 30, 70]);
    store.set('a1', entry(20, [], 'a'));
    expect(store.bytesOf('a')).toBe(20);
    store.set('b2', entry(70, [], 'b'));
    // 20 + 30 + 70 > 100: the least recently set (b1) goes.
    expect(evicted).toBe(1);
    expect([store.bytesOf('a'), store.bytesOf('b')]).toEqual([20, 70]);
    store.clear();
    expect([store.bytesOf('b'), store.bytes, store.size]).toEqual([0, 0, 0]);
  });

  it('never holds an answer larger than the whole, nor indexes it', () => {
    const store = createEntryStore({ maxEntries: 10, maxBytes: 100, ttlMs: 60_000 });
    store.set('big', entry(101, ['t']));
    expect(store.get('big')).toBeUndefined();
    expect([store.bytesOf('a'), store.dropTagged(['t'])]).toEqual([0, 0]);
  });
});

import { LRUCache } from 'lru-cache';

export type Refusal = 'too-large' | 'not-asked-again' | 'over-share';

/** What admission needs to know of the store at the moment of a decision. */
export interface Occupancy {
  hasRoomFor(bytes: number): boolean;
  readonly bytes: number;
  bytesOf(owner: string): number;
}

/**
 * Which answers the store keeps, weighing their size and who asks:
 * - no answer larger than `maxAnswerBytes` (a share of the whole), so a few heavy answers cannot
 *   flush the many light ones that repeat;
 * - free room is taken at once: filling it evicts nothing, and an emptied cache warms as fast as before;
 * - a full cache admits only an answer asked for again lately (TinyLFU's doorkeeper), so a flood of
 *   one-off queries cannot evict the answers that repeat;
 * - and only while the answer's token holds at most `maxTokenShare` of the bytes, once the others'
 *   answers would be evicted for it. A token alone in the cache is not bound: one hot reader keeps
 *   its whole working set.
 */
export function createAdmission(options: {
  maxBytes: number;
  maxAnswerBytes: number;
  /** 0..1 */
  maxTokenShare: number;
  /** How many keys the doorkeeper remembers. */
  maxKeys: number;
}) {
  const asked = new LRUCache<string, { again: boolean }>({ max: options.maxKeys });
  const shareBytes = options.maxBytes * options.maxTokenShare;

  return {
    /** A request asked for `key` and did not find it. */
    sighted(key: string) {
      const sighting = asked.get(key);
      if (sighting) sighting.again = true;
      else asked.set(key, { again: false });
    },
    /** Undefined: keep it. */
    refusal(key: string, bytes: number, owner: string, store: Occupancy): Refusal | undefined {
      if (bytes > options.maxAnswerBytes) return 'too-large';
      if (store.hasRoomFor(bytes)) {
        asked.delete(key);
        return undefined;
      }
      if (asked.get(key)?.again !== true) return 'not-asked-again';
      const held = store.bytesOf(owner);
      if (held < store.bytes && held + bytes > shareBytes) return 'over-share';
      asked.delete(key);
      return undefined;
    },
  };
}

export type Admission = ReturnType<typeof createAdmission>;

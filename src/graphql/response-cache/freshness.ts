import { LRUCache } from 'lru-cache';

/**
 * No answer kept across a change to what it read. Each miss notes the step it began at, each
 * invalidation is a step, and an answer may be stored only if none of its tags (nor everything) was
 * invalidated after it began. A second miss on the same key keeps the older note, so concurrent
 * executions err towards not caching.
 */
export function createFreshnessGuard(options: { maxKeys: number; maxTags?: number }) {
  let step = 0;
  let everythingAt = 0;
  // When each recently invalidated tag was; a tag forgotten here counts as invalidated at `forgottenAt`.
  let forgottenAt = 0;
  const tagInvalidatedAt = new LRUCache<string, number>({
    max: options.maxTags ?? 100_000,
    dispose: (at) => void (forgottenAt = Math.max(forgottenAt, at)),
  });
  const startedAt = new LRUCache<string, number>({ max: options.maxKeys });

  return {
    /** A request began computing the answer under `key`. */
    began(key: string) {
      if (!startedAt.has(key)) startedAt.set(key, step);
    },
    /** Whether the answer under `key`, which read `tags`, may be kept: true at most once per began(). */
    fresh(key: string, tags: Iterable<string>): boolean {
      const began = startedAt.get(key);
      startedAt.delete(key);
      if (began === undefined || began < everythingAt || began < forgottenAt) return false;
      for (const tag of tags) if ((tagInvalidatedAt.get(tag) ?? 0) > began) return false;
      return true;
    },
    changed(tags: readonly string[]) {
      step++;
      for (const tag of tags) tagInvalidatedAt.set(tag, step);
    },
    changedEverything() {
      step++;
      everythingAt = step;
    },
  };
}

export type FreshnessGuard = ReturnType<typeof createFreshnessGuard>;

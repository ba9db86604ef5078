/** The label of every key outside the busiest: parentheses, so no tenant slug can be mistaken for it. */
export const OTHER_LABEL = '(other)';

export interface BusiestLabels {
  /** Counts one event of `key` and returns its label: the key itself while it is among the busiest, else OTHER_LABEL. */
  label(key: string): string;
}

/**
 * A bounded label set: the `max` keys with the most events in the last window keep their own label,
 * the rest share OTHER_LABEL. Free slots go to keys as they come; when a window ends, the window's
 * busiest take the slots and those they displace are handed to `evicted` (so their series can go).
 * Per event: one clock read, one map update and one set lookup.
 */
export function createBusiestLabels(options: {
  max: number;
  windowMs: number;
  evicted: (key: string) => void;
  now?: () => number;
}): BusiestLabels {
  const { max, windowMs, evicted } = options;
  const now = options.now ?? Date.now;
  let labelled = new Set<string>();
  let counts = new Map<string, number>();
  let windowEnds = now() + windowMs;

  function rotate(at: number): void {
    const busiest = [...counts].sort((a, b) => b[1] - a[1]).slice(0, max);
    const next = new Set(busiest.map(([key]) => key));
    // Quiet keys keep their label while there is room: a series disappears only to make room.
    for (const key of labelled) if (next.size < max) next.add(key);
    for (const key of labelled) if (!next.has(key)) evicted(key);
    labelled = next;
    counts = new Map();
    windowEnds = at + windowMs;
  }

  return {
    label(key) {
      const at = now();
      if (at >= windowEnds) rotate(at);
      counts.set(key, (counts.get(key) ?? 0) + 1);
      if (labelled.has(key)) return key;
      if (labelled.size >= max) return OTHER_LABEL;
      labelled.add(key);
      return key;
    },
  };
}

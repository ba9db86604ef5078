/** Nearest-rank percentile (p from 0 to 100) of values sorted ascending; NaN when there are none. */
export const percentile = (sorted: readonly number[], p: number): number =>
  sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;

/**
 * Draws ranks 0..n-1 with probability proportional to 1/(rank+1)^s: a few items are asked for
 * very often and most rarely, as a storefront's products are. Inverse CDF by binary search.
 */
export function zipfSampler(n: number, s: number, rng: () => number): () => number {
  const cdf = new Float64Array(n);
  let total = 0;
  for (let k = 0; k < n; k++) cdf[k] = total += 1 / (k + 1) ** s;
  return () => {
    const u = rng() * total;
    let lo = 0;
    let hi = n - 1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (cdf[mid]! < u) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
}

// Order statistics of the benchmarks' samples.

/** The median (the mean of the two middle values for an even count). */
export function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

/** The q-quantile (0 < q ≤ 1) by the nearest-rank method; NaN for no samples. */
export function percentile(xs: readonly number[], q: number): number {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))]!;
}

/** The item of the median key (the lower middle for an even count): the round that is reported. */
export function medianItem<T>(xs: readonly T[], key: (x: T) => number): T {
  const s = [...xs].sort((a, b) => key(a) - key(b));
  return s[(s.length - 1) >> 1]!;
}

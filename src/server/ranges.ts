// Range algebra over blob sequence numbers. A catalog revision stores its blobs in one sorted
// file; a query's answer is a set of sequence numbers, kept as sorted, disjoint, half-open ranges
// so that adjacent blobs become one contiguous read.

/** Half-open `[start, end)` ranges, sorted by start, disjoint and non-adjacent. */
export type SeqRanges = Array<[number, number]>;

/** The ranges present in both inputs (each sorted and disjoint). */
export function intersectRanges(a: SeqRanges, b: SeqRanges): SeqRanges {
  const out: SeqRanges = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const [as, ae] = a[i]!;
    const [bs, be] = b[j]!;
    const start = Math.max(as, bs);
    const end = Math.min(ae, be);
    if (start < end) pushRange(out, start, end);
    if (ae < be) i++;
    else j++;
  }
  return out;
}

/** Appends `[start, end)`, merging it into the last range when they touch. */
export function pushRange(out: SeqRanges, start: number, end: number): void {
  const last = out[out.length - 1];
  if (last !== undefined && last[1] >= start) {
    if (end > last[1]) last[1] = end;
    return;
  }
  out.push([start, end]);
}

/** Ranges of sorted ascending sequence numbers that fall inside `within`. */
export function seqsWithin(seqs: readonly number[], within: SeqRanges): SeqRanges {
  const out: SeqRanges = [];
  let j = 0;
  for (const seq of seqs) {
    while (j < within.length && within[j]![1] <= seq) j++;
    if (j === within.length) break;
    if (seq >= within[j]![0]) pushRange(out, seq, seq + 1);
  }
  return out;
}

/** Number of sequence numbers in the ranges. */
export function rangeCount(ranges: SeqRanges): number {
  let n = 0;
  for (const [s, e] of ranges) n += e - s;
  return n;
}

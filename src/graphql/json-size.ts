// How large a value is as JSON, without building its JSON: what the query budgets and the
// package cache count.

/** About how many bytes `value` takes as JSON; counting stops past `limit`. */
export function jsonSizeUpTo(value: unknown, limit: number): number {
  let size = 0;
  const stack: unknown[] = [value];
  while (stack.length > 0 && size <= limit) {
    const v = stack.pop();
    if (typeof v === 'string') size += v.length + 2;
    else if (typeof v === 'number') size += 8;
    else if (typeof v === 'boolean') size += 5;
    else if (v === null || v === undefined) size += 4;
    else if (Array.isArray(v)) {
      size += 2 + v.length;
      for (const x of v) stack.push(x);
    } else {
      const o = v as Record<string, unknown>;
      size += 2;
      for (const k of Object.keys(o)) {
        size += k.length + 4;
        stack.push(o[k]);
      }
    }
  }
  return size;
}

// Small helpers for plain JSON values built from untrusted input.

/** Set an own property, also for the key `__proto__` (which plain assignment would not create). */
export function setOwn(obj: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__')
    Object.defineProperty(obj, key, {
      value,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  else obj[key] = value;
}

const LONE_SURROGATE_SOURCE =
  '[\\uD800-\\uDBFF](?![\\uDC00-\\uDFFF])|(?<![\\uD800-\\uDBFF])[\\uDC00-\\uDFFF]';
const HAS_LONE_SURROGATE = new RegExp(LONE_SURROGATE_SOURCE);
const LONE_SURROGATE = new RegExp(LONE_SURROGATE_SOURCE, 'g');

/** Replace lone UTF-16 surrogates with U+FFFD, as Go's encoding/json does for `\ud800` escapes. */
export function wellFormed(s: string): string {
  return HAS_LONE_SURROGATE.test(s) ? s.replace(LONE_SURROGATE, '\uFFFD') : s;
}

/**
 * Apply wellFormed to every string (keys too) of a parsed JSON value, in place; returns the value.
 * Iterative (an explicit stack), so that nesting up to the parser's depth limit cannot overflow
 * the call stack.
 */
export function wellFormedDeep(v: unknown): unknown {
  if (typeof v === 'string') return wellFormed(v);
  const stack: unknown[] = [v];
  while (stack.length > 0) {
    const c = stack.pop();
    if (Array.isArray(c)) {
      for (let i = 0; i < c.length; i++) {
        const e: unknown = c[i];
        if (typeof e === 'string') c[i] = wellFormed(e);
        else if (typeof e === 'object' && e !== null) stack.push(e);
      }
    } else if (typeof c === 'object' && c !== null) {
      const o = c as Record<string, unknown>;
      for (const k of Object.keys(o)) {
        const val = o[k];
        if (typeof val === 'object' && val !== null) stack.push(val);
        const wv = typeof val === 'string' ? wellFormed(val) : val;
        const wk = wellFormed(k);
        if (wk !== k) delete o[k];
        if (wk !== k || wv !== val) setOwn(o, wk, wv);
      }
    }
  }
  return v;
}

/** Whether any number in a parsed JSON value is not finite. Iterative, like wellFormedDeep. */
export function hasNonFinite(v: unknown): boolean {
  const stack: unknown[] = [v];
  while (stack.length > 0) {
    const c = stack.pop();
    if (typeof c === 'number') {
      if (!Number.isFinite(c)) return true;
    } else if (Array.isArray(c)) {
      for (const e of c) stack.push(e);
    } else if (typeof c === 'object' && c !== null) {
      for (const k of Object.keys(c)) stack.push((c as Record<string, unknown>)[k]);
    }
  }
  return false;
}

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

/** Apply wellFormed to every string (keys too) of a parsed JSON value, in place; returns the value. */
export function wellFormedDeep(v: unknown): unknown {
  if (typeof v === 'string') return wellFormed(v);
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) v[i] = wellFormedDeep(v[i]);
    return v;
  }
  if (typeof v === 'object' && v !== null) {
    const o = v as Record<string, unknown>;
    for (const k of Object.keys(o)) {
      const val = wellFormedDeep(o[k]);
      const wk = wellFormed(k);
      if (wk !== k) delete o[k];
      setOwn(o, wk, val);
    }
  }
  return v;
}

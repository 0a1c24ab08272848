// Values as upstream catalogd's GraphQL endpoint gives them: it is written in Go (graphql-go),
// so a blob's nested object is a string of Go's encoding/json, a number in a String field is
// formatted by fmt's %v, and each scalar coerces what it is given by graphql-go's rules
// (scalars.go: coerceString, coerceInt, coerceFloat, coerceBool). The response itself is
// encoded as encoding/json encodes graphql-go's result (keys sorted, HTML characters escaped).

/** Go's order of map keys: by the strings' UTF-8 bytes (code points), not UTF-16 units. */
export function compareGoKeys(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    // A surrogate (an astral code point) sorts after every BMP character in UTF-8.
    const xs = x >= 0xd800 && x <= 0xdfff;
    const ys = y >= 0xd800 && y <= 0xdfff;
    if (xs !== ys) return xs ? 1 : -1;
    return x < y ? -1 : 1;
  }
  return a.length - b.length;
}

const HTML_AND_SEPARATORS = /[<>&\u2028\u2029]/g;
const GO_ESCAPES: Record<string, string> = {
  '<': '\\u003c',
  '>': '\\u003e',
  '&': '\\u0026',
  '\u2028': '\\u2028',
  '\u2029': '\\u2029',
};

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** Whether a string holds anything JSON.stringify writes otherwise than encoding/json. */
const NOT_AS_JSON_STRINGIFY = /[<>&\u2028\u2029\ud800-\udfff]/;
const SURROGATE = /[\ud800-\udfff]/;

/** A JSON string as encoding/json writes it (HTML-safe; a lone surrogate is U+FFFD). */
export function goJsonString(s: string): string {
  // Most strings (names, images, base64 data) have none of those characters: one scan, then
  // JSON.stringify alone, instead of two replacing passes (a third of a large answer's time).
  if (!NOT_AS_JSON_STRINGIFY.test(s)) return JSON.stringify(s);
  const quoted = JSON.stringify(SURROGATE.test(s) ? s.replace(LONE_SURROGATE, '\ufffd') : s);
  return quoted.replace(HTML_AND_SEPARATORS, (c) => GO_ESCAPES[c]!);
}

/** A float64 as encoding/json writes it (JavaScript's shortest form, but `-0` for -0). */
export function goJsonNumber(n: number): string {
  if (!Number.isFinite(n)) throw new Error(`json: unsupported value: ${n}`);
  return Object.is(n, -0) ? '-0' : JSON.stringify(n);
}

/**
 * A value as encoding/json marshals it: object keys in Go's order, strings HTML-safe. Values
 * are JSON's (and objects without a prototype, as graphql-js makes them); undefined is null.
 */
export function goJson(value: unknown): string {
  const parts: string[] = [];
  write(value, parts);
  return parts.join('');
}

function write(value: unknown, out: string[]): void {
  if (value === null || value === undefined) out.push('null');
  else if (typeof value === 'string') out.push(goJsonString(value));
  else if (typeof value === 'number') out.push(goJsonNumber(value));
  else if (typeof value === 'boolean') out.push(value ? 'true' : 'false');
  else if (Array.isArray(value)) {
    out.push('[');
    value.forEach((v, i) => {
      if (i > 0) out.push(',');
      write(v, out);
    });
    out.push(']');
  } else if (typeof value === 'object') {
    const obj = value as Record<string, unknown>;
    const keys = Object.keys(obj).sort(compareGoKeys);
    out.push('{');
    keys.forEach((k, i) => {
      if (i > 0) out.push(',');
      out.push(goJsonString(k), ':');
      write(obj[k], out);
    });
    out.push('}');
  } else throw new Error(`json: unsupported type: ${typeof value}`);
}

/** fmt's `%v` of a float64: strconv's shortest `%g` with exponent outside [-4, 6). */
export function goFormatFloat(n: number): string {
  if (Number.isNaN(n)) return 'NaN';
  if (n === Infinity) return '+Inf';
  if (n === -Infinity) return '-Inf';
  if (n === 0) return Object.is(n, -0) ? '-0' : '0';
  const [mantissa, e] = n.toExponential().split('e') as [string, string];
  const exp = Number(e);
  if (exp < -4 || exp >= 6)
    return `${mantissa}e${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`;
  // JavaScript writes these in plain decimal, shortest digits, as Go does.
  return String(n);
}

/** strconv.ParseFloat(s, 64) for decimal forms, Inf and NaN; undefined where it fails. */
export function goParseFloat(s: string): number | undefined {
  if (/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(s)) {
    const n = Number(s);
    // Out of float64's range is an error (ErrRange).
    return Number.isFinite(n) ? n : undefined;
  }
  if (/^[+-]?(inf|infinity)$/i.test(s)) return s.startsWith('-') ? -Infinity : Infinity;
  if (/^nan$/i.test(s)) return NaN;
  return undefined;
}

/**
 * What upstream's resolvers return for a blob value (marshalComplexValue): objects and
 * arrays as a string of their JSON, everything else as it is.
 */
export function complexAsString(value: unknown): unknown {
  return value !== null && typeof value === 'object' ? goJson(value) : value;
}

/** graphql-go's String: a string as it is, a number by %v, a boolean `true` or `false`. */
export function coerceString(value: unknown): string | null {
  const v = complexAsString(value);
  if (v === null || v === undefined) return null;
  if (typeof v === 'string') return v;
  if (typeof v === 'number') return goFormatFloat(v);
  return v ? 'true' : 'false';
}

const MIN_INT32 = -2147483648;
const MAX_INT32 = 2147483647;

/**
 * The number graphql-go's Int and Float read from a value: a number as it is, a boolean 1 or
 * 0, a string parsed as a float; anything else undefined.
 */
function numberOf(value: unknown): number | undefined {
  const v = complexAsString(value);
  if (typeof v === 'number') return v;
  if (typeof v === 'boolean') return v ? 1 : 0;
  if (typeof v === 'string') return goParseFloat(v);
  return undefined;
}

/**
 * graphql-go's Int: a number within 32 bits truncated toward zero, else null; a boolean 1 or
 * 0; a string parsed as a float first; anything else null.
 */
export function coerceInt(value: unknown): number | null {
  const n = numberOf(value);
  if (n === undefined || Number.isNaN(n) || n < MIN_INT32 || n > MAX_INT32) return null;
  return Math.trunc(n) || 0;
}

/**
 * graphql-go's Float: a number as it is, a boolean 1 or 0, a string parsed; anything else
 * null. (NaN and infinities, which only a string could give, are null: encoding/json cannot
 * write them, and upstream's whole answer would fail.)
 */
export function coerceFloat(value: unknown): number | null {
  const n = numberOf(value);
  return n !== undefined && Number.isFinite(n) ? n : null;
}

/** graphql-go's Boolean: a string is false when empty or `false`, a number when zero. */
export function coerceBoolean(value: unknown): boolean | null {
  const v = complexAsString(value);
  if (v === null || v === undefined) return null;
  if (typeof v === 'boolean') return v;
  if (typeof v === 'string') return !(v === '' || v === 'false');
  if (typeof v === 'number') return v !== 0;
  return false;
}

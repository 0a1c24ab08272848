// YAML 1.1 scalar resolution as go.yaml.in/yaml/v2 (behind sigs.k8s.io/yaml, behind
// operator-registry) does it, so that a plain scalar means here what it means to `opm`.
// See docs/fbc.md "YAML semantics" for the table of every difference from js-yaml's defaults.

/** A resolved scalar, typed the way goyaml v2 types it (keys need the type to be stringified). */
export type GoScalar =
  | { kind: 'str'; value: string }
  | { kind: 'null' }
  | { kind: 'bool'; value: boolean }
  /** int and int64 in Go. */
  | { kind: 'int'; value: bigint }
  /** uint64 in Go: only positive values above int64's range. */
  | { kind: 'uint'; value: bigint }
  | { kind: 'float'; value: number };

export const TAG_PREFIX = 'tag:yaml.org,2002:';
const STR = `${TAG_PREFIX}str`;
const INT = `${TAG_PREFIX}int`;
const FLOAT = `${TAG_PREFIX}float`;
const BOOL = `${TAG_PREFIX}bool`;
const NULL = `${TAG_PREFIX}null`;
const TIMESTAMP = `${TAG_PREFIX}timestamp`;
export const BINARY_TAG = `${TAG_PREFIX}binary`;
export const MERGE_TAG = `${TAG_PREFIX}merge`;

const MAP = new Map<string, GoScalar>();
function fill(value: GoScalar, words: string[]): void {
  for (const w of words) MAP.set(w, value);
}
fill({ kind: 'bool', value: true }, [
  'y',
  'Y',
  'yes',
  'Yes',
  'YES',
  'true',
  'True',
  'TRUE',
  'on',
  'On',
  'ON',
]);
fill({ kind: 'bool', value: false }, [
  'n',
  'N',
  'no',
  'No',
  'NO',
  'false',
  'False',
  'FALSE',
  'off',
  'Off',
  'OFF',
]);
fill({ kind: 'null' }, ['', '~', 'null', 'Null', 'NULL']);
fill({ kind: 'float', value: NaN }, ['.nan', '.NaN', '.NAN']);
fill({ kind: 'float', value: Infinity }, ['.inf', '.Inf', '.INF', '+.inf', '+.Inf', '+.INF']);
fill({ kind: 'float', value: -Infinity }, ['-.inf', '-.Inf', '-.INF']);

/** goyaml's first-character dispatch: D digit, S sign, M word in MAP, . float. Others: always a string. */
function hintOf(c: string): string | undefined {
  if (c >= '0' && c <= '9') return 'D';
  if (c === '+' || c === '-') return 'S';
  if ('yYnNtTfFoO~'.includes(c)) return 'M';
  if (c === '.') return '.';
  return undefined;
}

const YAML_STYLE_FLOAT = /^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$/;
const DOT_FLOAT = /^\.[0-9]+([eE][-+]?[0-9]+)?$/;
// goyaml v2's accepted timestamp layouts; only consulted for an explicit !!timestamp tag, since an
// implicit timestamp decodes to its original text anyway.
const TIMESTAMP_RE =
  /^[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}(([Tt]| +)[0-9]{1,2}:[0-9]{1,2}:[0-9]{1,2}(\.[0-9]*)?( *(Z|[-+][0-9]{1,2}(:[0-9]{2})?))?)?$/;

const INT64_MAX = (1n << 63n) - 1n;
const UINT64_MAX = (1n << 64n) - 1n;

/** Go's strconv.ParseUint(s, 0, 64) without range check, after the sign: base prefixes 0x 0o 0b and a leading 0 for octal. */
function parseBase0(s: string): bigint | undefined {
  let base = 10;
  let digits = s;
  if (s.length > 1 && s[0] === '0') {
    const p = s[1]!.toLowerCase();
    if (p === 'x') [base, digits] = [16, s.slice(2)];
    else if (p === 'o') [base, digits] = [8, s.slice(2)];
    else if (p === 'b') [base, digits] = [2, s.slice(2)];
    else [base, digits] = [8, s.slice(1)];
  }
  const re =
    base === 16 ? /^[0-9a-fA-F]+$/ : base === 10 ? /^[0-9]+$/ : base === 8 ? /^[0-7]+$/ : /^[01]+$/;
  if (!re.test(digits)) return undefined;
  const prefix = base === 16 ? '0x' : base === 8 ? '0o' : base === 2 ? '0b' : '';
  return BigInt(prefix + digits);
}

/** strconv.ParseInt(s, 0, 64). */
export function goParseInt(s: string): bigint | undefined {
  let neg = false;
  let body = s;
  if (s[0] === '+' || s[0] === '-') {
    neg = s[0] === '-';
    body = s.slice(1);
  }
  const v = parseBase0(body);
  if (v === undefined) return undefined;
  if (neg ? v > INT64_MAX + 1n : v > INT64_MAX) return undefined;
  return neg ? -v : v;
}

/** strconv.ParseUint(s, 0, 64): no sign allowed. */
function goParseUint(s: string): bigint | undefined {
  const v = parseBase0(s);
  return v !== undefined && v <= UINT64_MAX ? v : undefined;
}

/** Resolve a plain (unquoted, untagged) scalar: goyaml v2's resolve("", in). */
export function resolvePlain(text: string): GoScalar {
  const hint = text === '' ? 'M' : hintOf(text[0]!);
  if (hint === undefined) return { kind: 'str', value: text };
  const mapped = MAP.get(text);
  if (mapped) return mapped;
  if (hint === '.') {
    if (DOT_FLOAT.test(text)) {
      const f = Number(text);
      if (Number.isFinite(f)) return { kind: 'float', value: f };
    }
    return { kind: 'str', value: text };
  }
  if (hint === 'D' || hint === 'S') {
    const plain = text.replaceAll('_', '');
    const i = goParseInt(plain);
    if (i !== undefined) return { kind: 'int', value: i };
    const u = goParseUint(plain);
    if (u !== undefined) return { kind: 'uint', value: u };
    if (YAML_STYLE_FLOAT.test(plain)) {
      const f = Number(plain);
      // Go's ParseFloat fails (and goyaml falls back to a string) on overflow to ±Inf.
      if (Number.isFinite(f)) return { kind: 'float', value: f };
    }
  }
  return { kind: 'str', value: text };
}

function isTimestamp(text: string): boolean {
  return TIMESTAMP_RE.test(text);
}

function shortTag(tag: string): string {
  return tag.startsWith(TAG_PREFIX) ? `!!${tag.slice(TAG_PREFIX.length)}` : tag;
}

function kindTag(s: GoScalar): string {
  switch (s.kind) {
    case 'str':
      return STR;
    case 'null':
      return NULL;
    case 'bool':
      return BOOL;
    case 'int':
    case 'uint':
      return INT;
    case 'float':
      return FLOAT;
  }
}

/**
 * Resolve a scalar with an explicit tag (full form, `tag:yaml.org,2002:int`), as goyaml v2 does:
 * the text is resolved as if plain and must agree with the tag (an int is accepted as a float);
 * !!str keeps the text; !!timestamp keeps the text when it looks like a timestamp; unknown and
 * local tags (`!foo`) keep the text. !!binary is handled by the caller.
 * Throws an Error with goyaml's message when the text does not fit the tag.
 */
export function resolveTagged(tag: string, text: string): GoScalar {
  switch (tag) {
    case STR:
      return { kind: 'str', value: text };
    case TIMESTAMP:
      if (isTimestamp(text)) return { kind: 'str', value: text };
      break;
    case INT:
    case FLOAT:
    case BOOL:
    case NULL: {
      const r = resolvePlain(text);
      if (kindTag(r) === tag) return r;
      if (tag === FLOAT && r.kind === 'int') return { kind: 'float', value: Number(r.value) };
      throw new Error(`cannot decode ${shortTag(kindTag(r))} \`${text}\` as a ${shortTag(tag)}`);
    }
    default:
      return { kind: 'str', value: text };
  }
  throw new Error(`cannot decode !!str \`${text}\` as a ${shortTag(tag)}`);
}

/**
 * A scalar as a JSON value, the way sigs.k8s.io/yaml marshals it and operator-registry reads it
 * back into map[string]any: every number becomes a float64 (big integers round), ±Inf and NaN
 * are errors (encoding/json refuses them).
 */
export function scalarToJSON(s: GoScalar): string | number | boolean | null {
  switch (s.kind) {
    case 'str':
      return s.value;
    case 'null':
      return null;
    case 'bool':
      return s.value;
    case 'int':
    case 'uint':
      return Number(s.value);
    case 'float':
      if (!Number.isFinite(s.value))
        throw new Error(`json: unsupported value: ${goFloatWord(s.value)}`);
      return s.value;
  }
}

function goFloatWord(f: number): string {
  return Number.isNaN(f) ? 'NaN' : f > 0 ? '+Inf' : '-Inf';
}

/**
 * A scalar as a mapping key, as sigs.k8s.io/yaml stringifies keys: ints in decimal, floats with
 * strconv.FormatFloat(f, 'g', -1, 32), bools as true/false; null and uint64 keys are errors.
 */
export function scalarToKey(s: GoScalar): string {
  switch (s.kind) {
    case 'str':
      return s.value;
    case 'bool':
      return s.value ? 'true' : 'false';
    case 'int':
      return s.value.toString();
    case 'float':
      if (Number.isNaN(s.value)) return '.nan';
      if (s.value === Infinity) return '.inf';
      if (s.value === -Infinity) return '-.inf';
      return formatFloat32G(s.value);
    case 'uint':
      throw new Error(`unsupported map key of type: uint64, key: 0x${s.value.toString(16)}`);
    case 'null':
      throw new Error('unsupported map key of type: <nil>');
  }
}

/** strconv.FormatFloat(f, 'g', -1, 32): shortest digits that round-trip through float32. */
export function formatFloat32G(f: number): string {
  const x = Math.fround(f);
  if (x === 0) return Object.is(x, -0) ? '-0' : '0';
  if (!Number.isFinite(x)) return x > 0 ? '+Inf' : '-Inf';
  let digits = '';
  let exp = 0;
  for (let p = 1; p <= 9; p++) {
    const s = Math.abs(x).toExponential(p - 1);
    if (Math.fround(Number(s)) === Math.abs(x)) {
      const [mant, e] = s.split('e') as [string, string];
      digits = mant.replace('.', '');
      exp = Number(e);
      break;
    }
  }
  digits = digits.replace(/0+$/, '') || '0';
  const sign = x < 0 ? '-' : '';
  // Go's %g with shortest precision switches to %e when exp < -4 || exp >= 6.
  const dp = exp + 1;
  if (exp < -4 || exp >= 6) {
    const m = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
    const es = Math.abs(exp) < 10 ? `0${Math.abs(exp)}` : `${Math.abs(exp)}`;
    return `${sign}${m}e${exp < 0 ? '-' : '+'}${es}`;
  }
  if (dp <= 0) return `${sign}0.${'0'.repeat(-dp)}${digits}`;
  if (dp >= digits.length) return `${sign}${digits}${'0'.repeat(dp - digits.length)}`;
  return `${sign}${digits.slice(0, dp)}.${digits.slice(dp)}`;
}

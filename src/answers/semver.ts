// Semantic versions and ranges with the semantics OLM uses (github.com/blang/semver/v4, which
// operator-registry uses for skipRange): strict `MAJOR.MINOR.PATCH[-PRE][+BUILD]` versions;
// ranges are comparators (`<`, `<=`, `>`, `>=`, `=`, `==`, `!=`, `!` or none) joined by spaces
// (AND) and `||` (OR), with `x` wildcards (`1.x`, `>=1.2.x`). Unlike npm's semver, a range
// matches pre-release versions like any other (`>=1.0.0 <2.0.0` matches `1.5.0-rc.1`).
// The range parser follows blang's code step by step, quirks included (`1.x.x` is `1.0.x`,
// one-character parts are dropped): hack/upgrades-check compares it with blang itself.

export interface SemVer {
  major: number;
  minor: number;
  patch: number;
  /** Pre-release identifiers (numbers for numeric ones); empty for a release. */
  pre: Array<string | number>;
  /** Build metadata identifiers; ignored by comparison. */
  build: string[];
}

const NUMERIC = /^(0|[1-9][0-9]*)$/;
const IDENT = /^[0-9A-Za-z-]+$/;

export class SemVerError extends Error {
  override name = 'SemVerError';
}

/** Parses a strict semantic version (blang's Parse); throws SemVerError. */
export function parseVersion(s: string): SemVer {
  // A catalog value: a number or an object where a version belongs is no version.
  if (typeof s !== 'string') throw new SemVerError(`invalid version: not a string`);
  const m = /^([0-9]+)\.([0-9]+)\.([0-9]+)(?:-([^+]*))?(?:\+(.*))?$/.exec(s);
  if (!m) throw new SemVerError(`invalid version ${JSON.stringify(s)}: want MAJOR.MINOR.PATCH`);
  const nums = [m[1]!, m[2]!, m[3]!].map((p) => {
    if (!NUMERIC.test(p))
      throw new SemVerError(`invalid version ${JSON.stringify(s)}: leading zero in ${p}`);
    const n = Number(p);
    if (!Number.isSafeInteger(n))
      throw new SemVerError(`invalid version ${JSON.stringify(s)}: ${p} is too large`);
    return n;
  });
  const pre: Array<string | number> = [];
  if (m[4] !== undefined) {
    for (const id of m[4].split('.')) {
      if (!IDENT.test(id))
        throw new SemVerError(`invalid version ${JSON.stringify(s)}: bad pre-release ${id}`);
      if (/^[0-9]+$/.test(id)) {
        if (!NUMERIC.test(id))
          throw new SemVerError(`invalid version ${JSON.stringify(s)}: leading zero in ${id}`);
        pre.push(Number(id));
      } else pre.push(id);
    }
  }
  const build: string[] = [];
  if (m[5] !== undefined) {
    for (const id of m[5].split('.')) {
      if (!IDENT.test(id))
        throw new SemVerError(`invalid version ${JSON.stringify(s)}: bad build metadata ${id}`);
      build.push(id);
    }
  }
  return { major: nums[0]!, minor: nums[1]!, patch: nums[2]!, pre, build };
}

/** The version, or undefined when it does not parse. */
export function tryParseVersion(s: string | undefined): SemVer | undefined {
  if (s === undefined) return undefined;
  try {
    return parseVersion(s);
  } catch {
    return undefined;
  }
}

export function formatVersion(v: SemVer): string {
  let s = `${v.major}.${v.minor}.${v.patch}`;
  if (v.pre.length > 0) s += `-${v.pre.join('.')}`;
  if (v.build.length > 0) s += `+${v.build.join('.')}`;
  return s;
}

function cmp(a: number | string, b: number | string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** -1, 0 or 1 by SemVer 2.0 precedence (build metadata ignored). */
export function compareVersions(a: SemVer, b: SemVer): number {
  const c = cmp(a.major, b.major) || cmp(a.minor, b.minor) || cmp(a.patch, b.patch);
  if (c !== 0) return c;
  if (a.pre.length === 0 || b.pre.length === 0) return cmp(b.pre.length, a.pre.length);
  for (let i = 0; i < Math.min(a.pre.length, b.pre.length); i++) {
    const x = a.pre[i]!;
    const y = b.pre[i]!;
    if (typeof x === typeof y) {
      const d = cmp(x, y);
      if (d !== 0) return d;
    } else return typeof x === 'number' ? -1 : 1; // numeric identifiers sort first
  }
  return cmp(a.pre.length, b.pre.length);
}

type Op = '=' | '!=' | '>' | '>=' | '<' | '<=';

interface Comparator {
  op: Op;
  version: SemVer;
}

/** A parsed range: OR of ANDs of comparators. */
export interface SemVerRange {
  source: string;
  alternatives: Comparator[][];
}

const OPS: Record<string, Op> = {
  '': '=',
  '=': '=',
  '==': '=',
  '!': '!=',
  '!=': '!=',
  '>': '>',
  '>=': '>=',
  '<': '<',
  '<=': '<=',
};

/**
 * blang's splitAndTrim, exactly: split at spaces, except those right after an operator
 * character, then drop the spaces inside each part. Like blang, a part of one character is
 * dropped (`>=1.0.0 x` is `>=1.0.0`).
 */
function splitParts(s: string): string[] {
  const out: string[] = [];
  let last = 0;
  let lastChar = '';
  for (let i = 0; i < s.length; i++) {
    if (s[i] === ' ' && !'<>='.includes(lastChar || 'x')) {
      if (last < i - 1) out.push(s.slice(last, i));
      last = i + 1;
    } else if (s[i] !== ' ') lastChar = s[i]!;
  }
  if (last < s.length - 1) out.push(s.slice(last));
  return out.map((p) => p.replaceAll(' ', ''));
}

/** blang's splitComparatorVersion: the operator is what comes before the first digit. */
function splitOp(part: string, source: string): [string, string] {
  const i = part.search(/[0-9]/);
  if (i < 0)
    throw new SemVerError(`invalid range ${JSON.stringify(source)}: no version in ${part}`);
  return [part.slice(0, i).trim(), part.slice(i)];
}

/**
 * blang's expandWildcardVersion, exactly (quirks included): a part containing `x` is a
 * wildcard; `1.x` (minor wildcard) and `1.2.x` (patch wildcard, also `1.x.x`) become plain
 * comparators; any other `x` (e.g. in a pre-release) keeps the version as written, and where
 * blang then needs the next version it produces an unparsable part (an error, as in blang).
 */
function expandWildcard(part: string): string[] {
  if (!part.includes('x')) return [part];
  const i = part.search(/[0-9]/);
  if (i < 0) return [part]; // blang fails on it as it is (no version)
  const op = part.slice(0, i).trim();
  const v = part.slice(i);
  const dots = v.split('.');
  const type =
    dots[dots.length - 1] === 'x'
      ? dots.length === 2
        ? 'minor'
        : dots.length === 3
          ? 'patch'
          : 'none'
      : 'none';
  let flat = v.replace('.x.x', '.x').replace('.x', '.0');
  if (flat.split('.').length === 2) flat += '.0';
  const increment = (): string => {
    const parts = flat.split('.');
    const index = type === 'patch' ? 1 : type === 'minor' ? 0 : -1;
    if (index < 0) return '';
    const n = Number.parseInt(parts[index] ?? '', 10);
    if (Number.isNaN(n)) return '';
    parts[index] = String(n + 1);
    return parts.join('.');
  };
  const out: string[] = [];
  let resultOp = '';
  let inc = false;
  switch (op) {
    case '>':
      [resultOp, inc] = ['>=', true];
      break;
    case '>=':
      resultOp = '>=';
      break;
    case '<':
      resultOp = '<';
      break;
    case '<=':
      [resultOp, inc] = ['<', true];
      break;
    case '':
    case '=':
    case '==':
      out.push(`>=${flat}`);
      [resultOp, inc] = ['<', true];
      break;
    case '!=':
    case '!':
      out.push(`<${flat}`);
      [resultOp, inc] = ['>=', true];
      break;
  }
  out.push(resultOp + (inc ? increment() : flat));
  return out;
}

/** Parses a range like `>=1.0.0 <1.2.0` or `<1.0.0 || >=2.x`; throws SemVerError. */
export function parseRange(source: string): SemVerRange {
  if (typeof source !== 'string') throw new SemVerError(`invalid range: not a string`);
  const parts = splitParts(source);
  const groups: string[][] = [[]];
  parts.forEach((p, i) => {
    if (p === '||') {
      if (i === 0) throw new SemVerError(`invalid range ${JSON.stringify(source)}: leading ||`);
      groups.push([]);
    } else groups[groups.length - 1]!.push(p);
  });
  // blang: an empty range or a trailing || is an error; an empty group between two || makes
  // blang's range a nil function (it panics when used): an error here.
  if (groups.some((g) => g.length === 0))
    throw new SemVerError(`invalid range ${JSON.stringify(source)}: empty alternative`);
  const alternatives = groups.map((g) =>
    g
      .flatMap((p) => expandWildcard(p))
      .map((p) => {
        const [opStr, v] = splitOp(p, source);
        const op = Object.hasOwn(OPS, opStr) ? OPS[opStr] : undefined;
        if (!op)
          throw new SemVerError(
            `invalid range ${JSON.stringify(source)}: unknown operator ${JSON.stringify(opStr)}`,
          );
        return { op, version: parseVersion(v) };
      }),
  );
  return { source, alternatives };
}

function holds(c: Comparator, v: SemVer): boolean {
  const d = compareVersions(v, c.version);
  switch (c.op) {
    case '=':
      return d === 0;
    case '!=':
      return d !== 0;
    case '>':
      return d > 0;
    case '>=':
      return d >= 0;
    case '<':
      return d < 0;
    case '<=':
      return d <= 0;
  }
}

export function satisfies(v: SemVer, range: SemVerRange): boolean {
  return range.alternatives.some((and) => and.every((c) => holds(c, v)));
}

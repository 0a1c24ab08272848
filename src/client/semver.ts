// Semantic versions and ranges with the semantics OLM uses (github.com/blang/semver/v4, which
// operator-registry uses for skipRange): strict `MAJOR.MINOR.PATCH[-PRE][+BUILD]` versions;
// ranges are comparators (`<`, `<=`, `>`, `>=`, `=`, `==`, `!=`, `!` or none) joined by spaces
// (AND) and `||` (OR), with `x` wildcards (`1.x`, `>=1.2.x`). Unlike npm's semver, a range
// matches pre-release versions like any other (`>=1.0.0 <2.0.0` matches `1.5.0-rc.1`).

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

/** blang's splitAndTrim: split at spaces, except those right after an operator character. */
function splitParts(s: string): string[] {
  const out: string[] = [];
  let cur = '';
  let last = '';
  for (const ch of s) {
    if (ch === ' ' && !'<>='.includes(last || 'x')) {
      if (cur !== '') out.push(cur);
      cur = '';
    } else if (ch !== ' ') {
      cur += ch;
      last = ch;
    }
  }
  if (cur !== '') out.push(cur);
  return out;
}

function splitOp(part: string, source: string): [string, string] {
  const i = part.search(/[0-9]/);
  if (i < 0)
    throw new SemVerError(`invalid range ${JSON.stringify(source)}: no version in ${part}`);
  return [part.slice(0, i), part.slice(i)];
}

function bump(v: string, index: 0 | 1): string {
  const parts = v.split('.');
  parts[index] = String(Number(parts[index]) + 1);
  if (index === 0) parts[1] = '0';
  parts[2] = '0';
  return parts.join('.');
}

/** blang's wildcard expansion: `1.x` and `1.2.x` (with any operator) to plain comparators. */
function expandWildcard(part: string, source: string): string[] {
  if (!part.includes('x')) return [part];
  const [op, v] = splitOp(part, source);
  const dots = v.split('.');
  if (dots[dots.length - 1] !== 'x' || dots.slice(0, -1).some((d) => !/^[0-9]+$/.test(d)))
    throw new SemVerError(`invalid range ${JSON.stringify(source)}: bad wildcard ${part}`);
  // 1.x → 1.0.0 (bump the major); 1.2.x → 1.2.0 (bump the minor); 1.x.x is treated as 1.x.
  const numbers = dots.filter((d) => d !== 'x');
  const index: 0 | 1 = numbers.length <= 1 ? 0 : 1;
  while (numbers.length < 3) numbers.push('0');
  const flat = numbers.join('.');
  const next = bump(flat, index);
  switch (op) {
    case '>':
      return [`>=${next}`];
    case '>=':
      return [`>=${flat}`];
    case '<':
      return [`<${flat}`];
    case '<=':
      return [`<${next}`];
    case '':
    case '=':
    case '==':
      return [`>=${flat}`, `<${next}`];
    case '!=':
    case '!':
      // blang ANDs these, which no version satisfies; kept for fidelity.
      return [`<${flat}`, `>=${next}`];
    default:
      throw new SemVerError(`invalid range ${JSON.stringify(source)}: bad operator in ${part}`);
  }
}

/** Parses a range like `>=1.0.0 <1.2.0` or `<1.0.0 || >=2.x`; throws SemVerError. */
export function parseRange(source: string): SemVerRange {
  const parts = splitParts(source);
  if (parts.length === 0) throw new SemVerError('invalid range "": empty');
  const groups: string[][] = [[]];
  parts.forEach((p, i) => {
    if (p === '||') {
      if (i === 0 || i === parts.length - 1)
        throw new SemVerError(`invalid range ${JSON.stringify(source)}: dangling ||`);
      groups.push([]);
    } else groups[groups.length - 1]!.push(p);
  });
  const alternatives = groups.map((g) =>
    g
      .flatMap((p) => expandWildcard(p, source))
      .map((p) => {
        const [opStr, v] = splitOp(p, source);
        const op = OPS[opStr];
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

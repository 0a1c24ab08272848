// gitignore patterns matched in time linear in the path and in the pattern: each pattern is
// compiled to a small NFA (no backtracking) and run over the path by keeping the set of live
// states, so one test costs at most (path length + 1) × (states) steps. A regex compiled from
// `**/a/**/a/…/b` backtracks exponentially on a deep path (issue 33: 14 repeats ran for weeks).
//
// The language is the one the `ignore` package (git's wildmatch, as gitignore(5) describes it)
// gave before: `*`, `?`, bracket expressions with ranges, `!`/`^` negation and POSIX classes,
// `\` escapes, `**` as a whole segment (leading: any depth; middle: zero or more directories;
// trailing: everything inside), a leading or inner `/` anchors to the .indexignore directory,
// a trailing `/` matches directories only, `!` re-includes, the last matching pattern decides,
// and nothing under an ignored directory is re-included. Matching is case-sensitive, as git
// and operator-registry (go-git) match; the `ignore` package defaulted to case-insensitive.

/** Where a test charges its steps; it may give the event loop a turn (src/util/yielder.ts). */
export interface StepBudget {
  charge(steps: number): Promise<void>;
}

/** Charges nothing, never waits. */
export const unbudgeted: StepBudget = { charge: () => Promise.resolve() };

/** Steps a match runs between two reports to its budget. */
const STEPS_PER_REPORT = 4096;

type CharTest = (c: string) => boolean;

interface Node {
  /** Transitions on one character. */
  on: { test: CharTest; to: number }[];
  /** Epsilon transitions. */
  eps: number[];
}

/** How the match must end once the last token matched. */
type EndKind = 'dir-or-end' | 'end' | 'rest';

interface CompiledRule {
  negative: boolean;
  /** Matches only at the path start ('anchored') or at the start or after any '/' ('any'). */
  start: 'anchored' | 'any';
  nodes: Node[];
  /** The node reached when every token matched. */
  final: number;
  end: EndKind;
}

type Atom =
  | { kind: 'lit'; c: string; escaped: boolean }
  | { kind: 'one'; test: CharTest }
  | { kind: 'star' }
  | { kind: 'never' };

const nonSlash: CharTest = (c) => c !== '/';

const POSIX_CLASSES: Record<string, CharTest> = {
  alnum: (c) => /^[0-9A-Za-z]$/.test(c),
  alpha: (c) => /^[A-Za-z]$/.test(c),
  blank: (c) => c === ' ' || c === '\t',
  cntrl: (c) => c.length === 1 && (c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f),
  digit: (c) => /^[0-9]$/.test(c),
  graph: (c) => /^[!-.0-~]$/.test(c),
  lower: (c) => /^[a-z]$/.test(c),
  print: (c) => /^[ -.0-~]$/.test(c),
  punct: (c) => /^[!-.:-@[-`{-~]$/.test(c),
  space: (c) => /^[ \t\n\r]$/.test(c),
  upper: (c) => /^[A-Z]$/.test(c),
  xdigit: (c) => /^[0-9A-Fa-f]$/.test(c),
};

/**
 * A bracket expression starting at pattern[start] === '[', as git's wildmatch reads it: a `]`
 * first is a member, `\` escapes, ranges, POSIX classes. Undefined when it is never closed (or
 * names an unknown class): then the whole pattern matches nothing.
 */
function scanBracket(p: string[], start: number): { end: number; test: CharTest } | undefined {
  let i = start + 1;
  let negated = false;
  if (p[i] === '!' || p[i] === '^') {
    negated = true;
    i++;
  }
  const members: CharTest[] = [];
  let prev: string | undefined;
  for (;;) {
    const c = p[i];
    if (c === undefined) return undefined;
    if (c === '\\') {
      const e = p[++i];
      if (e === undefined) return undefined;
      members.push((x) => x === e);
      prev = e;
    } else if (c === '-' && prev !== undefined && i + 1 < p.length && p[i + 1] !== ']') {
      let to = p[++i]!;
      if (to === '\\') to = p[++i] ?? '';
      const from = prev;
      // git tests the lower bound as a plain member first; an out-of-order range adds nothing.
      if (from <= to) members.push((x) => x >= from && x <= to);
      prev = undefined;
    } else if (c === '[' && p[i + 1] === ':') {
      let end = i + 2;
      while (end < p.length && p[end] !== ']') end++;
      if (end === p.length) return undefined;
      if (end > i + 2 && p[end - 1] === ':') {
        const cls = POSIX_CLASSES[p.slice(i + 2, end - 1).join('')];
        if (!cls) return undefined;
        members.push(cls);
        prev = undefined;
        i = end;
      } else {
        members.push((x) => x === '[');
        prev = '[';
      }
    } else {
      members.push((x) => x === c);
      prev = c;
    }
    i++;
    if (p[i] === ']') {
      const inSet = (x: string) => members.some((m) => m(x));
      return { end: i, test: (x) => x !== '/' && inSet(x) !== negated };
    }
  }
}

/** The pattern as atoms: escapes resolved, brackets scanned, runs of `*` kept one by one. */
function atomsOf(body: string): Atom[] {
  const p = [...body];
  const atoms: Atom[] = [];
  for (let i = 0; i < p.length; i++) {
    const c = p[i]!;
    if (c === '\\') {
      const e = p[++i];
      if (e === undefined) return [{ kind: 'never' }];
      atoms.push({ kind: 'lit', c: e, escaped: true });
    } else if (c === '*') atoms.push({ kind: 'star' });
    else if (c === '?') atoms.push({ kind: 'one', test: nonSlash });
    else if (c === '[') {
      const scanned = scanBracket(p, i);
      if (!scanned) return [{ kind: 'never' }];
      atoms.push({ kind: 'one', test: scanned.test });
      i = scanned.end;
    } else atoms.push({ kind: 'lit', c, escaped: false });
  }
  return atoms;
}

const isSlash = (a: Atom | undefined) => a?.kind === 'lit' && a.c === '/' && !a.escaped;
const isStar = (a: Atom | undefined) => a?.kind === 'star';

/** One segment of the pattern between unescaped slashes. */
type Segment = Atom[];

function split(atoms: Atom[]): Segment[] {
  const segs: Segment[] = [[]];
  for (const a of atoms) {
    if (isSlash(a)) segs.push([]);
    else segs.at(-1)!.push(a);
  }
  return segs;
}

const isGlobstar = (s: Segment) => s.length >= 2 && s.every(isStar);

/** Builds the NFA as a list of nodes with character and epsilon edges. */
class NfaBuilder {
  readonly nodes: Node[] = [{ on: [], eps: [] }];
  cur = 0;

  private add(): number {
    this.nodes.push({ on: [], eps: [] });
    return this.nodes.length - 1;
  }
  char(test: CharTest): void {
    const to = this.add();
    this.nodes[this.cur]!.on.push({ test, to });
    this.cur = to;
  }
  /** Zero or more characters that are not '/'. */
  star(): void {
    this.nodes[this.cur]!.on.push({ test: nonSlash, to: this.cur });
  }
  /** `(?:/[^/]+)*` (min 0) or `(?:/[^/]+)+` (min 1). */
  segments(min: 0 | 1): void {
    const loop = this.cur;
    const body = this.add();
    const after = this.add();
    this.nodes[loop]!.on.push({ test: (c) => c === '/', to: body });
    this.nodes[body]!.on.push({ test: nonSlash, to: after });
    this.nodes[after]!.on.push({ test: nonSlash, to: after });
    this.nodes[after]!.eps.push(loop);
    const exit = this.add();
    if (min === 0) this.nodes[loop]!.eps.push(exit);
    this.nodes[after]!.eps.push(exit);
    this.cur = exit;
  }
}

/**
 * Compiles one line of a .indexignore (already trimmed, not blank, not a comment), or
 * undefined when git would ignore the line.
 */
export function compileRule(line: string): CompiledRule | undefined {
  let body = line;
  let negative = false;
  if (body.startsWith('!')) {
    negative = true;
    body = body.slice(1);
  }
  // A line ending in an odd number of backslashes is invalid (the escape has nothing to quote).
  const trailing = /\\*$/.exec(body)![0].length;
  if (body === '' || trailing % 2 === 1) return undefined;
  if (body.startsWith('\\!') || body.startsWith('\\#')) body = body.slice(1);
  if (/^\/\*{2,}$/.test(body)) body = '**';
  // A slash anywhere but at the end anchors the pattern to the directory of the .indexignore.
  const innerSlash = /\/(?!$)/.test(body);
  let atoms = atomsOf(body);
  const never = atoms.some((a) => a.kind === 'never');
  const dirOnly = isSlash(atoms.at(-1));
  if (dirOnly) atoms = atoms.slice(0, -1);
  // `/` alone names no path.
  if (atoms.length === 0) return { negative, start: 'anchored', nodes: [], final: -1, end: 'end' };
  const segs = split(atoms);
  let start: CompiledRule['start'] = innerSlash ? 'anchored' : 'any';
  // A leading '/' only anchors.
  if (segs.length > 1 && segs[0]!.length === 0) segs.shift();
  // Leading `**/`s: at any depth.
  if (segs.length > 1 && isGlobstar(segs[0]!)) {
    while (segs.length > 1 && isGlobstar(segs[0]!)) segs.shift();
    start = 'any';
  }
  let end: EndKind = dirOnly ? 'end' : 'dir-or-end';
  // `**/` (or `/**/`): the leading globstar takes the final slash, any directory matches.
  if (dirOnly && segs.every(isGlobstar)) {
    segs.length = 0;
    start = 'any';
    end = 'dir-or-end';
  }
  const b = new NfaBuilder();
  for (let s = 0; s < segs.length; s++) {
    const seg = segs[s]!;
    const last = s === segs.length - 1;
    // `a/**/**/b` is `a/**/b`: consecutive globstars add nothing but states.
    if (s > 0 && isGlobstar(seg) && !last && isGlobstar(segs[s + 1]!)) continue;
    if (s > 0 && isGlobstar(seg)) {
      // The '/' before this segment is part of the globstar's match.
      if (last && !dirOnly) {
        // Trailing `/**`: everything inside (at least one character after the '/').
        b.char((c) => c === '/');
        b.char(() => true);
        end = 'rest';
        break;
      }
      b.segments(last ? 1 : 0);
      continue;
    }
    if (s > 0) b.char((c) => c === '/');
    for (let i = 0; i < seg.length; i++) {
      const a = seg[i]!;
      if (a.kind === 'star') {
        while (isStar(seg[i + 1])) i++;
        // A trailing `*` right after a '/' needs one character (`a/*` is not `a/`).
        if (last && !dirOnly && i === seg.length - 1 && s > 0 && seg.length === 1) b.char(nonSlash);
        b.star();
      } else if (a.kind === 'one') b.char(a.test);
      else if (a.kind === 'lit') {
        const c = a.c;
        b.char((x) => x === c);
      }
    }
  }
  // A directory's path ends in '/': a pattern for directories only matches that slash too.
  if (dirOnly && segs.length > 0) b.char((c) => c === '/');
  if (never) return { negative, start, nodes: [{ on: [], eps: [] }], final: -1, end };
  return { negative, start, nodes: b.nodes, final: b.cur, end };
}

/** Adds node and everything reachable from it by epsilon edges to set. */
function close(nodes: Node[], set: Set<number>, node: number): void {
  if (set.has(node)) return;
  set.add(node);
  for (const e of nodes[node]!.eps) close(nodes, set, e);
}

/**
 * Whether the rule matches path (a directory's path ends in '/'): a generator that yields the
 * steps taken every few thousand, so that the caller can give the event loop a turn while one
 * long pattern is matched against one long path. (path length + 1) × states steps at most.
 */
export function* matchSteps(rule: CompiledRule, path: string): Generator<number, boolean> {
  const { nodes, final, end } = rule;
  if (final < 0) return false;
  const chars = [...path];
  const n = chars.length;
  let live = new Set<number>();
  let steps = 0;
  for (let p = 0; p <= n; p++) {
    if (p === 0 || (rule.start === 'any' && chars[p - 1] === '/')) close(nodes, live, 0);
    steps += live.size;
    if (steps >= STEPS_PER_REPORT) {
      yield steps;
      steps = 0;
    }
    if (live.has(final)) {
      if (end === 'rest') return true;
      if (p === n) return true;
      if (end === 'dir-or-end' && p === n - 1 && chars[p] === '/') return true;
    }
    if (p === n || live.size === 0) {
      if (rule.start === 'anchored' || p === n) return false;
      live = new Set();
      continue;
    }
    const c = chars[p]!;
    const next = new Set<number>();
    for (const s of live) for (const t of nodes[s]!.on) if (t.test(c)) close(nodes, next, t.to);
    live = next;
  }
  return false;
}

export interface IgnoreResult {
  ignored: boolean;
  unignored: boolean;
}

/** The parent directory of a relative path ('a/b/' for 'a/b/c' and 'a/b/c/'), '' at the top. */
function parentOf(path: string): string {
  const end = path.endsWith('/') ? path.length - 2 : path.length - 1;
  const cut = path.lastIndexOf('/', end);
  return cut < 0 ? '' : path.slice(0, cut + 1);
}

/** The patterns of one .indexignore, tested against paths relative to its directory. */
export class IgnoreRules {
  private readonly rules: CompiledRule[];
  /** Directories tested already ('a/', 'a/b/'): each is matched once per walk. */
  private readonly dirs = new Map<string, IgnoreResult>();

  constructor(lines: string[]) {
    this.rules = lines.map(compileRule).filter((r) => r !== undefined);
  }

  /**
   * Whether path (relative, '/'-separated; a directory ends in '/') is ignored or re-included
   * by the last pattern that matches it, a directory above it that is ignored winning.
   */
  async test(path: string, budget: StepBudget = unbudgeted): Promise<IgnoreResult> {
    const cached = this.dirs.get(path);
    if (cached) return cached;
    const parentPath = parentOf(path);
    const parent = parentPath ? await this.test(parentPath, budget) : undefined;
    const result = parent?.ignored ? parent : await this.own(path, budget);
    if (path.endsWith('/')) this.dirs.set(path, result);
    return result;
  }

  private async own(path: string, budget: StepBudget): Promise<IgnoreResult> {
    for (let i = this.rules.length - 1; i >= 0; i--) {
      const rule = this.rules[i]!;
      const steps = matchSteps(rule, path);
      let r = steps.next();
      while (!r.done) {
        await budget.charge(r.value);
        r = steps.next();
      }
      if (r.value) return { ignored: !rule.negative, unignored: rule.negative };
    }
    return { ignored: false, unignored: false };
  }
}

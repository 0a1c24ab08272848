import { expect } from 'chai';
import ignore from 'ignore';
import { IgnoreRules } from './gitignore.js';
import type { StepBudget } from './gitignore.js';

/** A deterministic pseudo-random sequence (mulberry32), so that a failure can be replayed. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const PATTERN_PIECES = [
  'a',
  'b',
  'c',
  '.',
  '*',
  '?',
  '/',
  '**',
  '[ab]',
  '[!a]',
  '[a-b]',
  '\\*',
  '[[:alpha:]]',
];
const NAMES = ['a', 'b', 'ab', 'ba', 'aa', 'c', 'a.b', '*'];

function pick<T>(next: () => number, xs: readonly T[]): T {
  return xs[Math.floor(next() * xs.length)]!;
}

function randomPattern(next: () => number): string {
  let p = next() < 0.2 ? '!' : '';
  const n = 1 + Math.floor(next() * 6);
  for (let i = 0; i < n; i++) p += pick(next, PATTERN_PIECES);
  return p;
}

function randomPath(next: () => number): string {
  const depth = 1 + Math.floor(next() * 4);
  const parts = Array.from({ length: depth }, () => pick(next, NAMES));
  return parts.join('/') + (next() < 0.3 ? '/' : '');
}

describe('fbc/gitignore: patterns matched without backtracking', () => {
  it('decides as the ignore package (git wildmatch) does, case-sensitively, on random rules', async () => {
    const next = random(33);
    let compared = 0;
    for (let round = 0; round < 1000; round++) {
      const lines = Array.from({ length: 1 + Math.floor(next() * 3) }, () => randomPattern(next));
      const ours = new IgnoreRules(lines);
      const theirs = ignore({ ignorecase: false }).add(lines);
      for (let k = 0; k < 10; k++) {
        const path = randomPath(next);
        const want = theirs.test(path);
        const got = await ours.test(path);
        expect(
          { ignored: got.ignored, unignored: got.unignored },
          `${JSON.stringify(lines)} on ${path}`,
        ).to.deep.equal({ ignored: want.ignored, unignored: want.unignored });
        compared++;
      }
    }
    expect(compared).to.equal(10_000);
  });

  it('is case-sensitive, as git and operator-registry are', async () => {
    expect((await new IgnoreRules(['*.MD']).test('readme.md')).ignored).to.equal(false);
    expect((await new IgnoreRules(['*.md']).test('readme.md')).ignored).to.equal(true);
  });

  it('matches the red team pattern on a 60-deep path in linear steps, reported as it goes', async () => {
    const pattern = `${'**/a/'.repeat(14)}b`;
    const path = `${'a/'.repeat(60)}c.json`;
    const reports: number[] = [];
    const budget: StepBudget = { charge: async (steps) => void reports.push(steps) };
    expect((await new IgnoreRules([pattern]).test(path, budget)).ignored).to.equal(false);
    const total = reports.reduce((a, b) => a + b, 0);
    // Linear: at most (length + 1) × states for the path and each of its 60 parents.
    const states = 3 * 14 + 2;
    expect(total).to.be.below(61 * (path.length + 1) * states);
    // Reported in small steps, never as one long run.
    expect(Math.max(...reports)).to.be.below(4096 + states);
    expect((await new IgnoreRules([pattern]).test(`${'a/'.repeat(60)}b`)).ignored).to.equal(true);
  });
});

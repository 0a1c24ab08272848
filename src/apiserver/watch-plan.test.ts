import { expect } from 'chai';
import type { IndexedObject, ObjectIndex } from './blob-entries.js';
import type { ViewState } from './resource-version.js';
import { applyStep, diffEvents, planSteps } from './watch-plan.js';

function index(objects: Array<[string, string]>): ObjectIndex {
  const list: IndexedObject[] = objects.map(([name, hash], seq) => ({ seq, name, hash }));
  return { objects: list, byName: new Map(list.map((o) => [o.name, o])) };
}

const A = { key: 'aaaaaaaaaaaaaaaa', profile: 'full' } as const;
const B = { key: 'bbbbbbbbbbbbbbbb', profile: 'full' } as const;
const C = { key: 'cccccccccccccccc', profile: 'full' } as const;

describe('watch event plan', () => {
  const from = index([
    ['x', 'h1'],
    ['y', 'h1'],
    ['z', 'h1'],
  ]);
  const to = index([
    ['w', 'h2'],
    ['x', 'h1'],
    ['y', 'h2'],
  ]);

  it('diffs two revisions: DELETED in the old blob order, then ADDED/MODIFIED in the new', () => {
    expect(diffEvents(from, to, false).map((e) => `${e.type} ${e.object.name}`)).to.deep.equal([
      'DELETED z',
      'ADDED w',
      'MODIFIED y',
    ]);
    expect(diffEvents(undefined, to, false).map((e) => e.type)).to.deep.equal([
      'ADDED',
      'ADDED',
      'ADDED',
    ]);
    expect(diffEvents(from, undefined, false).map((e) => e.type)).to.deep.equal([
      'DELETED',
      'DELETED',
      'DELETED',
    ]);
    expect(diffEvents(from, from, true).map((e) => e.type)).to.deep.equal([
      'MODIFIED',
      'MODIFIED',
      'MODIFIED',
    ]);
  });

  it('plans each changed catalog in name order, a pending transition first', () => {
    const start: ViewState = {
      catalogs: [
        { catalog: 'a', ...A },
        { catalog: 'b', ...A },
        { catalog: 'c', ...A },
      ],
      transition: { catalog: 'c', to: B, index: 2 },
    };
    const target: ViewState = {
      catalogs: [
        { catalog: 'a', ...B },
        { catalog: 'b', ...A },
        { catalog: 'c', ...C },
        { catalog: 'd', ...A },
      ],
    };
    expect(planSteps(start, target)).to.deep.equal([
      { catalog: 'c', from: A, to: B, start: 2 },
      { catalog: 'a', from: A, to: B, start: 0 },
      { catalog: 'c', from: B, to: C, start: 0 },
      { catalog: 'd', from: undefined, to: A, start: 0 },
    ]);
    expect(planSteps(target, { catalogs: [] }).map((s) => [s.catalog, s.to])).to.deep.equal([
      ['a', undefined],
      ['b', undefined],
      ['c', undefined],
      ['d', undefined],
    ]);
  });

  it('reaches the same state by the same events from every position of a change', () => {
    // Apply events 0..k-1 to the old names, resume at k: the union is the full sequence, once.
    const events = diffEvents(from, to, false);
    for (let k = 0; k <= events.length; k++) {
      const resumed = planSteps(
        { catalogs: [{ catalog: 'a', ...A }], transition: { catalog: 'a', to: B, index: k } },
        { catalogs: [{ catalog: 'a', ...B }] },
      );
      expect(resumed).to.deep.equal([{ catalog: 'a', from: A, to: B, start: k }]);
      const names = new Map(from.objects.map((o) => [o.name, o.hash]));
      for (const e of [...events.slice(0, k), ...events.slice(k)]) {
        if (e.type === 'DELETED') names.delete(e.object.name);
        else names.set(e.object.name, e.object.hash);
      }
      expect([...names].sort()).to.deep.equal(to.objects.map((o) => [o.name, o.hash]).sort());
    }
  });

  it('sets and removes a catalog in name order', () => {
    const s: ViewState = { catalogs: [{ catalog: 'b', ...A }] };
    expect(applyStep(s, { catalog: 'a', to: B }).catalogs.map((c) => c.catalog)).to.deep.equal([
      'a',
      'b',
    ]);
    expect(applyStep(s, { catalog: 'b', to: undefined }).catalogs).to.deep.equal([]);
  });
});

import { expect } from 'chai';
import type { UpgradeGraph } from '../../client/index.js';
import { MAX_LANES, MARGIN, NODE_WIDTH, ROW, layoutGraph } from './graph-layout.js';

function chain(n: number, extra: UpgradeGraph['edges'] = []): UpgradeGraph {
  const nodes = Array.from({ length: n }, (_, i) => ({
    name: `p.v${n - i}`,
    version: `${n - i}.0.0`,
    inChannel: true,
  }));
  const edges: UpgradeGraph['edges'] = [];
  for (let i = 1; i < n; i++) edges.push({ from: `p.v${i}`, to: `p.v${i + 1}`, via: 'replaces' });
  return { nodes, edges: [...edges, ...extra], head: `p.v${n}`, warnings: [] };
}

describe('ui graph layout', () => {
  it('puts one node a row in the graph order, the head first and marked', () => {
    const l = layoutGraph(chain(5));
    expect(l.nodes.map((n) => n.name)).to.deep.equal(['p.v5', 'p.v4', 'p.v3', 'p.v2', 'p.v1']);
    expect(l.nodes.map((n) => n.y)).to.deep.equal([0, 1, 2, 3, 4].map((i) => MARGIN + i * ROW));
    expect(l.nodes.filter((n) => n.head).map((n) => n.name)).to.deep.equal(['p.v5']);
    expect(l.height).to.equal(MARGIN * 2 + 5 * ROW);
  });

  it('draws every edge between its two rows, adjacent replaces in one lane', () => {
    const l = layoutGraph(chain(4));
    expect(l.edges).to.have.length(3);
    expect(new Set(l.edges.map((e) => e.lane))).to.deep.equal(new Set([0]));
    const row = (name: string) => l.nodes.find((n) => n.name === name)!.y + ROW / 2 - 2;
    for (const e of l.edges) {
      const m = /^M(\d+) (\d+) C.* (\d+) (\d+)$/.exec(e.d)!;
      expect(Number(m[1])).to.equal(MARGIN + NODE_WIDTH);
      expect(Number(m[2])).to.equal(row(e.from));
      expect(Number(m[4])).to.equal(row(e.to));
    }
  });

  it('gives overlapping arcs different lanes', () => {
    const l = layoutGraph(
      chain(5, [
        { from: 'p.v1', to: 'p.v4', via: 'skips' },
        { from: 'p.v2', to: 'p.v5', via: 'skipRange', range: '<5.0.0' },
      ]),
    );
    const rows = new Map(l.nodes.map((n, i) => [n.name, i]));
    const span = (e: (typeof l.edges)[number]) =>
      [rows.get(e.from)!, rows.get(e.to)!].sort((a, b) => a - b) as [number, number];
    for (const a of l.edges)
      for (const b of l.edges) {
        if (a === b || a.lane !== b.lane) continue;
        const [a0, a1] = span(a);
        const [b0, b1] = span(b);
        expect(a1 <= b0 || b1 <= a0, `${a.from}->${a.to} and ${b.from}->${b.to}`).to.equal(true);
      }
    expect(l.edges.find((e) => e.via === 'skipRange')?.range).to.equal('<5.0.0');
  });

  it('stays narrow for a channel of 150 entries with many skips', () => {
    const extra: UpgradeGraph['edges'] = [];
    for (let i = 1; i + 10 <= 150; i++)
      extra.push({ from: `p.v${i}`, to: `p.v${i + 10}`, via: 'skips' });
    const l = layoutGraph(chain(150, extra));
    expect(l.nodes).to.have.length(150);
    expect(l.edges).to.have.length(149 + 140);
    expect(Math.max(...l.edges.map((e) => e.lane))).to.be.lessThan(MAX_LANES);
    expect(l.width).to.be.at.most(MARGIN * 2 + NODE_WIDTH + (MAX_LANES + 1) * 10);
  });

  it('leaves out edges to bundles it has no row for', () => {
    const g = chain(2, [{ from: 'gone.v0', to: 'p.v1', via: 'replaces' }]);
    expect(layoutGraph(g).edges.map((e) => e.from)).to.deep.equal(['p.v1']);
  });
});

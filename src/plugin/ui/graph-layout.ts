// Layout of a channel's upgrade graph as an arc diagram: one row per node, newest version on top
// (the order of upgradeGraph's nodes), every edge an arc on the right from the older node to the
// newer one. Rows keep channels of 100+ entries readable (the picture grows in height only);
// arcs get lanes so that arcs whose row spans overlap never share a lane (up to MAX_LANES).
import type { UpgradeGraph } from '../../client/index.js';

export const ROW = 28;
export const NODE_WIDTH = 260;
const LANE = 10;
export const MAX_LANES = 24;
export const MARGIN = 8;

interface NodeBox {
  name: string;
  version?: string;
  inChannel: boolean;
  deprecated?: string;
  head: boolean;
  x: number;
  y: number;
}

interface EdgeArc {
  from: string;
  to: string;
  via: 'replaces' | 'skips' | 'skipRange';
  range?: string;
  lane: number;
  /** SVG path data. */
  d: string;
}

interface GraphLayout {
  width: number;
  height: number;
  nodes: NodeBox[];
  edges: EdgeArc[];
}

export function layoutGraph(g: Pick<UpgradeGraph, 'nodes' | 'edges' | 'head'>): GraphLayout {
  const row = new Map<string, number>();
  const nodes: NodeBox[] = g.nodes.map((n, i) => {
    row.set(n.name, i);
    return {
      name: n.name,
      ...(n.version !== undefined && { version: n.version }),
      inChannel: n.inChannel,
      ...(n.deprecated !== undefined && { deprecated: n.deprecated }),
      head: n.name === g.head,
      x: MARGIN,
      y: MARGIN + i * ROW,
    };
  });
  // Edges between known rows, shortest spans first: they get the inner lanes.
  const drawable = g.edges
    .filter((e) => row.has(e.from) && row.has(e.to))
    .map((e) => {
      const a = row.get(e.from)!;
      const b = row.get(e.to)!;
      return { e, lo: Math.min(a, b), hi: Math.max(a, b) };
    })
    .sort((x, y) => x.hi - x.lo - (y.hi - y.lo) || x.lo - y.lo);
  const lanes: Array<Array<[number, number]>> = [];
  const edges: EdgeArc[] = [];
  for (const { e, lo, hi } of drawable) {
    let lane = lanes.findIndex((spans) => spans.every(([l, h]) => h <= lo || l >= hi));
    if (lane === -1) {
      if (lanes.length < MAX_LANES) {
        lanes.push([]);
        lane = lanes.length - 1;
      } else lane = MAX_LANES - 1;
    }
    lanes[lane]!.push([lo, hi]);
    const x0 = MARGIN + NODE_WIDTH;
    const xl = x0 + (lane + 1) * LANE;
    const y1 = MARGIN + row.get(e.from)! * ROW + ROW / 2 - 2;
    const y2 = MARGIN + row.get(e.to)! * ROW + ROW / 2 - 2;
    edges.push({
      from: e.from,
      to: e.to,
      via: e.via,
      ...(e.range !== undefined && { range: e.range }),
      lane,
      d: `M${x0} ${y1} C${xl} ${y1} ${xl} ${y2} ${x0} ${y2}`,
    });
  }
  return {
    width: MARGIN * 2 + NODE_WIDTH + (lanes.length + 1) * LANE,
    height: MARGIN * 2 + Math.max(1, nodes.length) * ROW,
    nodes,
    edges,
  };
}

// Renders an upgrade graph as text (one row per bundle with its upgrade targets), Mermaid or
// Graphviz dot. Edges point in the upgrade direction: from the installed bundle to the one
// that can replace it.
import type { UpgradeEdge, UpgradeGraph } from '../client/index.js';
import { formatTable } from './table.js';

function via(e: UpgradeEdge): string {
  return e.via === 'skipRange' ? `skipRange ${e.range ?? ''}`.trim() : e.via;
}

/** Targets of each node, grouped: `to (replaces, skipRange >=1.0.0 <1.2.0)`. */
function targets(g: UpgradeGraph, from: string): string[] {
  const byTo = new Map<string, string[]>();
  for (const e of g.edges) {
    if (e.from !== from) continue;
    byTo.set(e.to, [...(byTo.get(e.to) ?? []), via(e)]);
  }
  const order = new Map(g.nodes.map((n, i) => [n.name, i]));
  return [...byTo.entries()]
    .sort((a, b) => (order.get(a[0]) ?? 0) - (order.get(b[0]) ?? 0))
    .map(([to, vias]) => `${to} (${vias.join(', ')})`);
}

export function graphText(g: UpgradeGraph, noHeaders = false): string {
  const rows = g.nodes.map((n) => {
    const t = targets(g, n.name);
    const notes = [
      n.name === g.head ? 'head' : '',
      n.inChannel ? '' : 'not in channel',
      n.deprecated !== undefined ? 'deprecated' : '',
    ]
      .filter(Boolean)
      .join(', ');
    return [n.name, n.version ?? '', t.join(', ') || (n.name === g.head ? '-' : ''), notes];
  });
  return formatTable(['BUNDLE', 'VERSION', 'UPGRADES TO', 'NOTE'], rows, { noHeaders });
}

const q = (s: string) => JSON.stringify(s);

export function graphMermaid(g: UpgradeGraph, title: string): string {
  const id = new Map(g.nodes.map((n, i) => [n.name, `n${i}`]));
  const lines = ['graph LR', `  %% ${title}`];
  for (const n of g.nodes)
    lines.push(`  ${id.get(n.name)}[${q(n.version ? `${n.name} (${n.version})` : n.name)}]`);
  for (const e of g.edges) lines.push(`  ${id.get(e.from)} -- ${q(via(e))} --> ${id.get(e.to)}`);
  lines.push('  classDef head stroke-width:3px;');
  lines.push('  classDef outside stroke-dasharray: 5 5;');
  if (g.head !== undefined) lines.push(`  class ${id.get(g.head)} head;`);
  const outside = g.nodes.filter((n) => !n.inChannel).map((n) => id.get(n.name));
  if (outside.length > 0) lines.push(`  class ${outside.join(',')} outside;`);
  const deprecated = g.nodes.filter((n) => n.deprecated !== undefined).map((n) => id.get(n.name));
  if (deprecated.length > 0)
    lines.push('  classDef deprecated fill:#fdd;', `  class ${deprecated.join(',')} deprecated;`);
  return `${lines.join('\n')}\n`;
}

export function graphDot(g: UpgradeGraph, title: string): string {
  const lines = [`digraph ${q(title)} {`, '  rankdir=LR;', '  node [shape=box];'];
  for (const n of g.nodes) {
    const attrs = [`label=${q(n.version ? `${n.name}\n${n.version}` : n.name)}`];
    if (n.name === g.head) attrs.push('penwidth=3');
    if (!n.inChannel) attrs.push('style=dashed');
    if (n.deprecated !== undefined) attrs.push('color=red', 'xlabel="deprecated"');
    lines.push(`  ${q(n.name)} [${attrs.join(', ')}];`);
  }
  for (const e of g.edges) {
    const style = e.via === 'replaces' ? '' : ', style=dashed';
    lines.push(`  ${q(e.from)} -> ${q(e.to)} [label=${q(via(e))}${style}];`);
  }
  lines.push('}');
  return `${lines.join('\n')}\n`;
}

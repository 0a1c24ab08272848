// Renders an upgrade graph as text (one row per bundle with its upgrade targets), Mermaid or
// Graphviz dot. Edges point in the upgrade direction: from the installed bundle to the one
// that can replace it.
//
// Names are catalog text, which its author controls: in Mermaid and dot, each name is one
// label or one quoted id whatever it holds (quotes, newlines, brackets, arrows, comments), and
// its control characters are made visible first (util/terminal-text.ts).
import type { UpgradeEdge, UpgradeGraph } from '../client/index.js';
import { terminalLine } from '../util/terminal-text.js';
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

/**
 * Characters a Mermaid label keeps as they are; `<` too unless it could open an HTML tag
 * (Mermaid renders labels as HTML). Any other character is written as Mermaid's entity code
 * (`#34;` for `"`, decimal), which Mermaid shows as that character: so a quote cannot end the
 * label, and a newline (already `^J`), `]`, `-->`, `%%` or `;` stays text inside it.
 */
const MERMAID_UNSAFE = /[^A-Za-z0-9 ._+\-/:,=()<>^]|<(?=[A-Za-z/!?])/gu;

/**
 * Text for Mermaid: one line, entity-coded but for MERMAID_UNSAFE's characters. Also what the
 * title comment says: Mermaid finds `%%{init: ...}%%` directives anywhere, comments included.
 */
function mermaidText(text: string): string {
  return terminalLine(text).replace(MERMAID_UNSAFE, (c) => `#${c.codePointAt(0)};`);
}

/** A Mermaid label: double-quoted, one label whatever the text holds. */
export function mermaidLabel(text: string): string {
  return `"${mermaidText(text)}"`;
}

/**
 * A dot quoted string (an id or a label) that ends where it should: graphviz takes `\"` as a
 * quote inside the string and keeps other backslashes, so a backslash is written as the entity
 * `&#92;` (and `&` as `&amp;`, since graphviz decodes entities in labels), never before the
 * closing quote. Newlines are made visible (`^J`); `\n` in a label is dot's own line break.
 */
function dotString(text: string, lineBreaks: readonly string[] = []): string {
  const part = (t: string) =>
    terminalLine(t).replace(/[&"\\]/g, (c) => (c === '&' ? '&amp;' : c === '"' ? '\\"' : '&#92;'));
  return `"${[text, ...lineBreaks].map(part).join('\\n')}"`;
}

export function graphMermaid(g: UpgradeGraph, title: string): string {
  // Ids are n0, n1...: never a name.
  const id = new Map(g.nodes.map((n, i) => [n.name, `n${i}`]));
  const lines = ['graph LR', `  %% ${mermaidText(title)}`];
  for (const n of g.nodes)
    lines.push(
      `  ${id.get(n.name)}[${mermaidLabel(n.version ? `${n.name} (${n.version})` : n.name)}]`,
    );
  for (const e of g.edges)
    lines.push(`  ${id.get(e.from)} -- ${mermaidLabel(via(e))} --> ${id.get(e.to)}`);
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
  const lines = [`digraph ${dotString(title)} {`, '  rankdir=LR;', '  node [shape=box];'];
  for (const n of g.nodes) {
    const attrs = [`label=${dotString(n.name, n.version ? [n.version] : [])}`];
    if (n.name === g.head) attrs.push('penwidth=3');
    if (!n.inChannel) attrs.push('style=dashed');
    if (n.deprecated !== undefined) attrs.push('color=red', 'xlabel="deprecated"');
    lines.push(`  ${dotString(n.name)} [${attrs.join(', ')}];`);
  }
  for (const e of g.edges) {
    const style = e.via === 'replaces' ? '' : ', style=dashed';
    lines.push(
      `  ${dotString(e.from)} -> ${dotString(e.to)} [label=${dotString(via(e))}${style}];`,
    );
  }
  lines.push('}');
  return `${lines.join('\n')}\n`;
}

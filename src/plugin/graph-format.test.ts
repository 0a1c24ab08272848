// graph -o mermaid|dot on names that try to leave their label: every name is one node label (or
// one quoted dot id) whatever it holds.
import { expect } from 'chai';
import { upgradeGraph } from '../client/index.js';
import { terminalLine } from '../util/terminal-text.js';
import { graphDot, graphMermaid, mermaidLabel } from './graph-format.js';

/** Names that would end the label and add nodes, edges, comments or directives of their own. */
const HOSTILE = [
  'a"] --> evil["pwned',
  'b\n  evil2["injected"]\n  click evil2 "https://evil.example"',
  'c]',
  'd --> e',
  'f %% comment',
  '%%{init: {"securityLevel": "loose"}}%%',
  'g;h#quot;<img src=x onerror=alert(1)>',
  'k\\',
];

/** Mermaid's entity codes (`#34;`) back to characters: what a label shows. */
const decode = (label: string) =>
  label.replace(/#(\d+);/g, (_, n: string) => String.fromCodePoint(Number(n)));

describe('kubectl-catalog: graph output of hostile names', () => {
  const entries = HOSTILE.map((name, i) => ({
    name,
    ...(i > 0 && { replaces: HOSTILE[i - 1]! }),
  }));
  const versions = new Map(HOSTILE.map((n, i) => [n, `1.0.${i}`]));
  const g = upgradeGraph({ entries }, versions);

  it('mermaid: one quoted label per node, nothing outside it but the ids and the arrows', () => {
    // The title names the channel: a directive there would apply too.
    const out = graphMermaid(g, `pkg/${HOSTILE[5]!} ${HOSTILE[1]!}`);
    const lines = out.trimEnd().split('\n');
    // The header, the title comment, one line per node and edge, two classDefs, the head class.
    expect(lines).to.have.length(2 + HOSTILE.length + (HOSTILE.length - 1) + 3);
    expect(lines[0]).to.equal('graph LR');
    expect(lines[1]).to.match(/^ {2}%% pkg\/#37;#37;#123;init: /);
    expect(lines[1]!.slice(5).replace(/#\d+;/g, '')).to.not.match(/["[\]{};%`]/);
    const nodes = lines.filter((l) => /^ {2}n\d+\[/.test(l));
    const edges = lines.filter((l) => /^ {2}n\d+ -- /.test(l));
    expect(nodes).to.have.length(HOSTILE.length);
    expect(edges).to.have.length(HOSTILE.length - 1);
    const labels: string[] = [];
    for (const l of nodes) {
      const m = /^ {2}n\d+\["([^"]*)"\]$/.exec(l);
      expect(m, l).to.not.equal(null);
      // Inside the quotes: no quote, bracket, semicolon, percent or tag opening left raw.
      expect(m![1]!.replace(/#\d+;/g, '')).to.not.match(/["[\]{};%`]|<[A-Za-z/!?]/);
      labels.push(decode(m![1]!));
    }
    for (const l of edges) expect(l).to.match(/^ {2}n\d+ -- "replaces" --> n\d+$/);
    // Each label shows its name (control characters made visible) and version.
    expect(labels.sort()).to.deep.equal(
      HOSTILE.map((n) => `${terminalLine(n)} (${versions.get(n)})`).sort(),
    );
    expect(out).to.not.include('evil2["');
    expect(out).to.not.include('\n  click');
  });

  it('mermaid: ordinary names and ranges stay readable', () => {
    expect(mermaidLabel('op.v1.2.0 (1.2.0)')).to.equal('"op.v1.2.0 (1.2.0)"');
    expect(mermaidLabel('skipRange >=1.0.0 <1.2.0')).to.equal('"skipRange >=1.0.0 <1.2.0"');
    expect(mermaidLabel('a"b')).to.equal('"a#34;b"');
    expect(mermaidLabel('x<b>')).to.equal('"x#60;b>"');
    expect(mermaidLabel('ünï')).to.equal('"#252;n#239;"');
  });

  it('dot: each name one quoted string, a trailing backslash cannot swallow the closing quote', () => {
    const out = graphDot(g, 'pkg/ch');
    const lines = out.trimEnd().split('\n');
    expect(lines).to.have.length(3 + HOSTILE.length + (HOSTILE.length - 1) + 1);
    // Graphviz reads `\"` as a quote inside the string: no backslash is written raw at all.
    for (const l of lines.slice(3, -1)) {
      expect(l, l).to.not.include('\\\\');
      // Every string ends at an unescaped quote: strip the strings, what is left is dot syntax.
      const rest = l.replace(/"(?:[^"\\]|\\.)*"/g, 'S');
      expect(rest, l).to.match(/^ {2}(S \[label=S(, penwidth=3)?\];|S -> S \[label=S\];)$/);
    }
    expect(out).to.include('"k&#92;" [label="k&#92;\\n1.0.7"');
    expect(out).to.include(
      'label="b^J  evil2[\\"injected\\"]^J  click evil2 \\"https://evil.example\\"\\n1.0.1"',
    );
  });
});

import { expect } from 'chai';
import { upgradeGraph } from '../client/index.js';
import { graphDot, graphMermaid, graphText } from './graph-format.js';
import { age, excerpt, formatTable, shortDigest } from './table.js';

describe('kubectl-catalog: tables', () => {
  it('aligns columns like kubectl (padding 3, min width 6, last column unpadded)', () => {
    const out = formatTable(
      ['name', 'head', 'n'],
      [
        ['stable', 'example-operator.v1.1.0', '2'],
        ['a', '', '10'],
      ],
    );
    expect(out).to.equal(
      [
        'NAME     HEAD                      N',
        'stable   example-operator.v1.1.0   2',
        'a        <none>                    10',
        '',
      ].join('\n'),
    );
    expect(formatTable(['x', 'y'], [['1', '2']], { noHeaders: true })).to.equal('1     2\n');
    expect(formatTable(['x'], [], { noHeaders: true })).to.equal('');
    expect(formatTable(['x', 'y'], [['a\tb\nc', 'z']])).to.equal('X       Y\na b c   z\n');
  });

  it('formats ages as kubectl get does', () => {
    const now = new Date('2024-05-01T12:00:00Z');
    expect(age('2024-05-01T11:59:00Z', now)).to.equal('60s');
    expect(age(undefined, now)).to.equal('');
    expect(age('garbage', now)).to.equal('');
  });

  it('excerpts and short digests', () => {
    expect(excerpt('short')).to.equal('short');
    expect(excerpt('first line\nsecond')).to.equal('first line');
    expect(excerpt('x'.repeat(70), 10)).to.equal('xxxxxxx...');
    expect(excerpt(undefined)).to.equal('');
    expect(shortDigest(`reg/x@sha256:${'ab'.repeat(32)}`)).to.equal('sha256:abababababab');
    expect(shortDigest(undefined)).to.equal('');
  });
});

describe('kubectl-catalog: graph output', () => {
  const g = upgradeGraph(
    {
      entries: [
        { name: 'op.v1.0.0' },
        { name: 'op.v1.1.0', replaces: 'op.v1.0.0' },
        { name: 'op.v1.2.0', replaces: 'op.v1.1.0', skipRange: '>=1.0.0 <1.2.0' },
      ],
    },
    new Map([
      ['op.v1.0.0', '1.0.0'],
      ['op.v1.1.0', '1.1.0'],
      ['op.v1.2.0', '1.2.0'],
    ]),
  );

  it('text: one row per bundle with its upgrade targets', () => {
    expect(graphText(g)).to.equal(
      [
        'BUNDLE      VERSION   UPGRADES TO                                                  NOTE',
        'op.v1.2.0   1.2.0     -                                                            head',
        'op.v1.1.0   1.1.0     op.v1.2.0 (skipRange >=1.0.0 <1.2.0, replaces)               <none>',
        'op.v1.0.0   1.0.0     op.v1.2.0 (skipRange >=1.0.0 <1.2.0), op.v1.1.0 (replaces)   <none>',
        '',
      ].join('\n'),
    );
  });

  it('mermaid', () => {
    expect(graphMermaid(g, 'op/candidate')).to.equal(
      [
        'graph LR',
        '  %% op/candidate',
        '  n0["op.v1.2.0 (1.2.0)"]',
        '  n1["op.v1.1.0 (1.1.0)"]',
        '  n2["op.v1.0.0 (1.0.0)"]',
        '  n2 -- "replaces" --> n1',
        '  n2 -- "skipRange >=1.0.0 <1.2.0" --> n0',
        '  n1 -- "skipRange >=1.0.0 <1.2.0" --> n0',
        '  n1 -- "replaces" --> n0',
        '  classDef head stroke-width:3px;',
        '  classDef outside stroke-dasharray: 5 5;',
        '  class n0 head;',
        '',
      ].join('\n'),
    );
  });

  it('dot', () => {
    const dot = graphDot(g, 'op/candidate');
    expect(dot).to.match(/^digraph "op\/candidate" \{\n {2}rankdir=LR;\n/);
    expect(dot).to.include('  "op.v1.2.0" [label="op.v1.2.0\\n1.2.0", penwidth=3];\n');
    expect(dot).to.include('  "op.v1.0.0" -> "op.v1.1.0" [label="replaces"];\n');
    expect(dot).to.include(
      '  "op.v1.0.0" -> "op.v1.2.0" [label="skipRange >=1.0.0 <1.2.0", style=dashed];\n',
    );
    expect(dot.endsWith('}\n')).to.equal(true);
  });
});

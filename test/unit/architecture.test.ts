// The layering of src/ (docs/architecture.md), checked over the import graph: every import
// between layers is one the table (docs/architecture.json) allows, and no modules import each
// other in a cycle at run time. Type-only cycles (erased when compiled) are listed in the table,
// so that a new one is seen.
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { cycles, moduleEdges, REPO_ROOT } from '../support/import-graph.js';

interface Layer {
  name: string;
  path: string;
  imports: string[];
  typeImports?: string[];
}

interface Architecture {
  layers: Layer[];
  typeOnlyCycles: string[][];
}

const table = JSON.parse(
  readFileSync(path.join(REPO_ROOT, 'docs/architecture.json'), 'utf8'),
) as Architecture;

/** The layer of a module: the longest path prefix that matches. */
function layerOf(file: string): Layer {
  const matches = table.layers.filter((l) => file.startsWith(l.path));
  const layer = matches.sort((a, b) => b.path.length - a.path.length)[0];
  if (layer === undefined) throw new Error(`${file} is in no layer of docs/architecture.json`);
  return layer;
}

describe('architecture: the layering of docs/architecture.json', () => {
  const edges = moduleEdges('src');

  it('names only layers it declares', () => {
    const names = new Set(table.layers.map((l) => l.name));
    const unknown = table.layers.flatMap((l) =>
      [...l.imports, ...(l.typeImports ?? [])].filter((n) => !names.has(n)),
    );
    expect(unknown).to.deep.equal([]);
  });

  it('has every import between layers allowed by the table', () => {
    const forbidden = edges.flatMap(({ from, to, typeOnly }) => {
      const a = layerOf(from);
      const b = layerOf(to);
      if (a === b || a.imports.includes(b.name)) return [];
      if (typeOnly && (a.typeImports ?? []).includes(b.name)) return [];
      return [`${from} → ${to} (${a.name} → ${b.name}${typeOnly ? ', type-only' : ''})`];
    });
    expect(forbidden, 'imports the layering does not allow').to.deep.equal([]);
  });

  it('allows only imports that exist (an allowance nobody uses is taken out of the table)', () => {
    const used = new Set(
      edges.flatMap(({ from, to, typeOnly }) => {
        const a = layerOf(from).name;
        const b = layerOf(to).name;
        return a === b ? [] : [`${a} ${typeOnly ? 'types' : 'imports'} ${b}`];
      }),
    );
    const unused = table.layers.flatMap((l) => [
      ...l.imports
        .filter((n) => !used.has(`${l.name} imports ${n}`))
        .map((n) => `${l.name} → ${n}`),
      ...(l.typeImports ?? [])
        .filter((n) => !used.has(`${l.name} types ${n}`))
        .map((n) => `${l.name} → ${n} (type-only)`),
    ]);
    expect(unused, 'allowances no import uses').to.deep.equal([]);
  });

  it('is drawn as it is in docs/architecture.md (the table between the layers markers)', () => {
    const page = readFileSync(path.join(REPO_ROOT, 'docs/architecture.md'), 'utf8');
    const drawn = /<!-- layers:begin -->\n([\s\S]*?)<!-- layers:end -->/.exec(page)?.[1] ?? '';
    const rows = drawn
      .split('\n')
      .filter((l) => l.startsWith('|'))
      .slice(2)
      .map((l) => l.split('|').map((c) => c.trim()));
    const list = (cell: string | undefined) =>
      !cell || cell === 'nothing' ? [] : cell.split(',').map((n) => n.trim());
    expect(
      rows.map(([, name, p, imports, types]) => ({
        name,
        path: p?.replace(/`/g, ''),
        imports: list(imports),
        typeImports: list(types),
      })),
    ).to.deep.equal(
      table.layers.map((l) => ({
        name: l.name,
        path: l.path,
        imports: l.imports,
        typeImports: l.typeImports ?? [],
      })),
    );
  });

  it('has no reconcile step that imports another step (what steps share is in pipeline/)', () => {
    const steps = 'src/controllers/clustercatalog/steps/';
    const stepToStep = edges
      .filter(({ from, to }) => from.startsWith(steps) && to.startsWith(steps))
      .map(({ from, to }) => `${from} → ${to}`);
    expect(stepToStep).to.deep.equal([]);
  });

  it('has no import cycle at run time', () => {
    expect(cycles(edges.filter((e) => !e.typeOnly))).to.deep.equal([]);
  });

  it('lists the type-only cycles (erased at run time) in the table', () => {
    expect(cycles(edges)).to.deep.equal(table.typeOnlyCycles);
  });
});

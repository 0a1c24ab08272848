// Code-health numbers of a part of the tree (issue 34's closing note): the largest file, the
// longest functions and how many pass 80 lines (tests left out), and how many project modules
// the client entry point loads at run time (test/support/import-graph.ts).
//
//   npx tsx hack/code-stats.ts src/client src/plugin src/util/command-error.ts
import { readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { importGraph } from '../test/support/import-graph.js';

const LONG = 80;

function sourceFiles(root: string): string[] {
  if (!statSync(root).isDirectory())
    return root.endsWith('.ts') && !root.endsWith('.test.ts') ? [root] : [];
  return readdirSync(root).flatMap((f) => sourceFiles(path.join(root, f)));
}

/** A function's name: its declaration's, else the variable or property it is assigned to. */
function nameOf(node: ts.Node): string {
  const named = (node as { name?: ts.Node }).name;
  if (named) return named.getText();
  const parent = node.parent;
  if (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent))
    return parent.name.getText();
  return '<anonymous>';
}

function functionLengths(file: string): Array<{ where: string; lines: number }> {
  const sf = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const out: Array<{ where: string; lines: number }> = [];
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && (node as { body?: ts.Node }).body !== undefined) {
      const line = (pos: number) => sf.getLineAndCharacterOfPosition(pos).line;
      const first = line(node.getStart());
      out.push({
        where: `${file}:${first + 1} ${nameOf(node)}`,
        lines: line(node.getEnd()) - first + 1,
      });
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return out;
}

const files = process.argv.slice(2).flatMap(sourceFiles);
const sizes = files.map((f) => ({
  file: f,
  lines: readFileSync(f, 'utf8').split('\n').length - 1,
}));
sizes.sort((a, b) => b.lines - a.lines);
const fns = files.flatMap(functionLengths).sort((a, b) => b.lines - a.lines);
console.log(`largest file: ${sizes[0]?.file ?? '-'} (${sizes[0]?.lines ?? 0} lines)`);
console.log(`longest function: ${fns[0]?.where ?? '-'} (${fns[0]?.lines ?? 0} lines)`);
console.log(`functions over ${LONG} lines: ${fns.filter((f) => f.lines > LONG).length}`);
for (const f of fns.filter((x) => x.lines > LONG)) console.log(`  ${f.where} (${f.lines})`);
console.log(`client entry project modules: ${importGraph('src/client/index.ts').files.length}`);

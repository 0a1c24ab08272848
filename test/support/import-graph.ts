// The runtime import graph of the project's TypeScript, walked statically from an entry file:
// which project files and which npm packages loading that entry loads. Type-only imports and
// exports are left out (they are erased); dynamic `import()`s are kept apart, since they load
// only on the path that calls them.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

export interface ImportGraph {
  /** Project files loaded, relative to the repository root, sorted. */
  files: string[];
  /** npm packages loaded (statically), sorted; node: built-ins are left out. */
  packages: string[];
  /** npm packages only imported dynamically, sorted. */
  dynamicPackages: string[];
  /** Every static edge between project files: [importer, imported], relative paths. */
  edges: Array<[string, string]>;
}

export const REPO_ROOT = path.resolve(import.meta.dirname, '../..');

interface ModuleRef {
  specifier: string;
  dynamic: boolean;
}

/** The runtime module references of one file; with `typeOnly`, type-only ones too. */
export function moduleRefs(file: string, opts: { typeOnly?: boolean } = {}): ModuleRef[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest);
  const refs: ModuleRef[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      const clause = node.importClause;
      const typeOnly =
        clause !== undefined &&
        (clause.isTypeOnly ||
          (clause.name === undefined &&
            clause.namedBindings !== undefined &&
            ts.isNamedImports(clause.namedBindings) &&
            clause.namedBindings.elements.length > 0 &&
            clause.namedBindings.elements.every((e) => e.isTypeOnly)));
      if (!typeOnly || opts.typeOnly)
        refs.push({ specifier: node.moduleSpecifier.text, dynamic: false });
    } else if (
      ts.isExportDeclaration(node) &&
      node.moduleSpecifier !== undefined &&
      ts.isStringLiteral(node.moduleSpecifier)
    ) {
      if (!node.isTypeOnly || opts.typeOnly)
        refs.push({ specifier: node.moduleSpecifier.text, dynamic: false });
    } else if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments[0] !== undefined &&
      ts.isStringLiteral(node.arguments[0])
    ) {
      refs.push({ specifier: node.arguments[0].text, dynamic: true });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return refs;
}

function resolveRelative(from: string, specifier: string): string {
  const target = path.resolve(path.dirname(from), specifier);
  const candidates = [
    target.replace(/\.js$/, '.ts'),
    `${target}.ts`,
    path.join(target, 'index.ts'),
  ];
  const found = candidates.find((c) => existsSync(c));
  if (!found) throw new Error(`${path.relative(REPO_ROOT, from)}: cannot resolve ${specifier}`);
  return found;
}

/** The package name of a bare specifier: `@scope/name/sub` → `@scope/name`. */
function packageName(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : (parts[0] ?? specifier);
}

/** Walks the static import graph from `entry` (a path relative to the repository root). */
export function importGraph(entry: string): ImportGraph {
  const files = new Set<string>();
  const packages = new Set<string>();
  const dynamicPackages = new Set<string>();
  const edges: Array<[string, string]> = [];
  const pending = [path.resolve(REPO_ROOT, entry)];
  const rel = (f: string) => path.relative(REPO_ROOT, f).split(path.sep).join('/');
  while (pending.length > 0) {
    const file = pending.pop() as string;
    if (files.has(rel(file))) continue;
    files.add(rel(file));
    for (const ref of moduleRefs(file)) {
      if (ref.specifier.startsWith('node:')) continue;
      if (ref.specifier.startsWith('.')) {
        if (ref.dynamic) continue; // loaded only on the path that calls it; not walked
        const target = resolveRelative(file, ref.specifier);
        edges.push([rel(file), rel(target)]);
        pending.push(target);
      } else if (ref.dynamic) {
        dynamicPackages.add(packageName(ref.specifier));
      } else {
        packages.add(packageName(ref.specifier));
      }
    }
  }
  for (const p of packages) dynamicPackages.delete(p);
  return {
    files: [...files].sort(),
    packages: [...packages].sort(),
    dynamicPackages: [...dynamicPackages].sort(),
    edges,
  };
}

export interface ModuleEdge {
  from: string;
  to: string;
  /** Erased at run time: every name imported is a type. */
  typeOnly: boolean;
}

/**
 * Every static edge between the project's own modules under `dir` (tests left out), each
 * marked run-time or type-only. Dynamic `import()`s are left out: they load only when called.
 */
export function moduleEdges(dir = 'src'): ModuleEdge[] {
  const root = path.join(REPO_ROOT, dir);
  const rel = (f: string) => path.relative(REPO_ROOT, f).split(path.sep).join('/');
  const edges: ModuleEdge[] = [];
  for (const name of readdirSync(root, { recursive: true, encoding: 'utf8' }).sort()) {
    if (!name.endsWith('.ts') || name.endsWith('.test.ts')) continue;
    const file = path.join(root, name);
    const runtime = new Set(
      moduleRefs(file)
        .filter((r) => !r.dynamic)
        .map((r) => r.specifier),
    );
    for (const ref of moduleRefs(file, { typeOnly: true })) {
      if (ref.dynamic || !ref.specifier.startsWith('.')) continue;
      const to = rel(resolveRelative(file, ref.specifier));
      edges.push({ from: rel(file), to, typeOnly: !runtime.has(ref.specifier) });
    }
  }
  return edges;
}

/** The strongly connected components of more than one module (Tarjan): the import cycles. */
export function cycles(edges: Array<{ from: string; to: string }>): string[][] {
  const next = new Map<string, string[]>();
  for (const { from, to } of edges) next.set(from, [...(next.get(from) ?? []), to]);
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, index.size);
    low.set(v, index.get(v)!);
    stack.push(v);
    onStack.add(v);
    for (const w of next.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    for (let w = stack.pop()!; ; w = stack.pop()!) {
      onStack.delete(w);
      component.push(w);
      if (w === v) break;
    }
    if (component.length > 1) found.push(component.sort());
  };
  for (const v of [...next.keys()].sort()) if (!index.has(v)) visit(v);
  return found.sort((a, b) => a[0]!.localeCompare(b[0]!));
}

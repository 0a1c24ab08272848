import { expect } from 'chai';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { moduleRefs, REPO_ROOT } from '../../test/support/import-graph.js';

// src/kube is the transport: the HTTP client, typed resources, kubeconfig, API errors, events,
// leases and secrets. The runtime, the source and the sync own the interfaces it serves, so it
// imports nothing else of the project (type-only imports included: they would still tie it to
// their modules). eslint.config.js says the same to the editor.
describe('kube: a leaf of the module graph', () => {
  it('imports no project module outside src/kube', () => {
    const dir = path.join(REPO_ROOT, 'src/kube');
    const outside: string[] = [];
    for (const name of readdirSync(dir, { recursive: true, encoding: 'utf8' })) {
      if (!name.endsWith('.ts') || name.endsWith('.test.ts')) continue;
      const file = path.join(dir, name);
      for (const { specifier } of moduleRefs(file, { typeOnly: true })) {
        if (!specifier.startsWith('.')) continue;
        const target = path.resolve(path.dirname(file), specifier);
        if (!target.startsWith(dir + path.sep)) outside.push(`src/kube/${name} → ${specifier}`);
      }
    }
    expect(outside).to.deep.equal([]);
  });
});

import { spawnSync } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { FIXTURES } from '../../test/fixtures/fbc/expectations.js';
import { generateCatalog } from '../../test/support/fbcgen.js';
import type { CostModel } from './render-cost-model.js';
import { COST_MODEL } from './render-cost-model.js';
import { render } from './render.js';
import { countContentValues } from './render-cost-model.js';
import { catalogCost, formatCostJson, formatCostText, measureCatalog } from './render-cost.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const GOLDEN = path.join(ROOT, 'test/golden/render');
/** Set UPDATE_GOLDEN=1 to rewrite the golden files from the current output. */
const UPDATE = process.env.UPDATE_GOLDEN === '1';

/** Fixed coefficients, so the golden files do not change when the bench's numbers do. */
const MODEL: CostModel = {
  measuredBy: 'test model',
  profiles: {
    full: {
      etcdBytesPerObject: 1000,
      etcdBytesPerObjectByte: 1.5,
      apiserverHeapBytesPerObject: 20000,
      apiserverHeapBytesPerObjectByte: 2,
      apiserverHeapBytesPerContentValue: 0,
    },
    lean: {
      etcdBytesPerObject: 900,
      etcdBytesPerObjectByte: 0.2,
      apiserverHeapBytesPerObject: 5000,
      apiserverHeapBytesPerObjectByte: 0.5,
      apiserverHeapBytesPerContentValue: 0,
    },
  },
};

function cli(...args: string[]) {
  return spawnSync(
    process.execPath,
    ['--import', 'tsx', path.join(ROOT, 'src/cmd/catalogd.ts'), 'render', ...args],
    { encoding: 'utf8', cwd: ROOT },
  );
}

const opts = (catalog = 'operatorhubio') => ({ catalog, output: 'json' as const });

describe('catalogd render --cost', () => {
  for (const [file, format] of [
    ['cost.txt', formatCostText],
    ['cost.json', formatCostJson],
  ] as const) {
    it(`json-stream matches test/golden/render/${file}`, async () => {
      const got = format(await catalogCost(path.join(FIXTURES, 'json-stream'), opts(), MODEL));
      const golden = path.join(GOLDEN, file);
      if (UPDATE) await writeFile(golden, got);
      expect(got).to.equal(await readFile(golden, 'utf8'));
    });
  }

  it('counts exactly the objects render prints in each profile, and their bytes as the controller sends them', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'render-cost-'));
    try {
      await generateCatalog(dir, { seed: 5, sizeMB: 0.3 });
      const cost = await catalogCost(dir, opts('c'), MODEL);
      const sizes = await measureCatalog(dir, opts('c'));
      for (const contentProfile of ['full', 'lean'] as const) {
        let json = '';
        await render(dir, { ...opts('c'), contentProfile }, async (s) => {
          json += s;
        });
        const items = (JSON.parse(json) as { items: { spec: { content?: unknown } }[] }).items;
        const p = cost.profiles[contentProfile];
        expect(p.objects).to.equal(items.length);
        // The heap's JSON-value term: the values of the content render prints.
        expect(sizes.profiles[contentProfile].contentValues).to.equal(
          items.reduce((n, o) => n + countContentValues(o.spec.content), 0),
        );
        // Render leaves the owner reference out; the controller's objects carry it.
        const rendered = items.reduce((n, o) => n + Buffer.byteLength(JSON.stringify(o)), 0);
        expect(p.objectBytes).to.be.greaterThan(rendered);
        expect(p.objectBytes).to.be.lessThan(rendered + items.length * 300);
      }
      expect(cost.objects).to.equal(cost.profiles.full.objects);
      expect(cost.profiles.lean.objectBytes).to.be.lessThan(cost.profiles.full.objectBytes);
      // Profile none: no objects, so nothing in etcd or the apiserver's heap.
      expect(cost.profiles.none).to.deep.equal({
        objects: 0,
        objectBytes: 0,
        etcdBytes: 0,
        apiserverHeapBytes: 0,
      });
      // etcd: the model's per-object and per-byte terms.
      expect(cost.profiles.lean.etcdBytes).to.equal(
        Math.round(900 * cost.objects + 0.2 * cost.profiles.lean.objectBytes),
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('the CLI predicts with the checked-in coefficients and says which run they come from', () => {
    const text = cli(path.join(FIXTURES, 'json-stream'), '--cost');
    expect(text.status, text.stderr).to.equal(0);
    expect(text.stdout).to.match(/^catalog json-stream: 4 objects, /);
    expect(text.stdout).to.include(COST_MODEL.measuredBy);
    const json = cli(path.join(FIXTURES, 'json-stream'), '--cost', '-o', 'json', '--catalog', 'c');
    expect(json.status, json.stderr).to.equal(0);
    const r = JSON.parse(json.stdout) as { catalog: string; objects: number };
    expect(r).to.include({ catalog: 'c', objects: 4 });
  });

  it('the CLI exits 1 with one line and no stack trace on bad input', () => {
    for (const dir of ['error-missing-schema', 'no-such-dir']) {
      const r = cli(path.join(FIXTURES, dir), '--cost', '--catalog', 'c');
      expect(r.status).to.equal(1);
      expect(r.stdout).to.equal('');
      expect(r.stderr).to.match(/^catalogd render: .+\n$/);
      expect(r.stderr).to.not.include('    at ');
    }
  });
});

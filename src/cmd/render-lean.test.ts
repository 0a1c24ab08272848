// `catalogd render --content-profile lean`: the lean objects, exactly as the controller builds
// them (the sync engine's scan with the same target), golden for a real catalog excerpt.
import { spawnSync } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import type { CatalogMetadata } from '../api/v1/index.js';
import { canonicalize, readCatalog } from '../fbc/index.js';
import { blobUrl, catalogBaseUrl } from '../server/index.js';
import { scanCatalog } from '../sync/index.js';
import { render } from './render.js';
import { DEFAULT_SERVER_URL } from './render-target.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const GOLDEN = path.join(ROOT, 'test/golden/render');
const CATALOG = path.join(ROOT, 'test/fixtures/lean/catalog');
/** Set UPDATE_GOLDEN=1 to rewrite the golden files from the current output. */
const UPDATE = process.env.UPDATE_GOLDEN === '1';

function cli(...args: string[]) {
  return spawnSync(
    process.execPath,
    ['--import', 'tsx', path.join(ROOT, 'src/cmd/catalogd.ts'), 'render', ...args],
    { encoding: 'utf8', cwd: ROOT, maxBuffer: 1 << 28 },
  );
}

async function renderJson(profile?: 'lean' | 'full'): Promise<CatalogMetadata[]> {
  let out = '';
  const opts = { catalog: 'community', output: 'json' as const };
  await render(CATALOG, profile ? { ...opts, contentProfile: profile } : opts, async (s) => {
    out += s;
  });
  return (JSON.parse(out) as { items: CatalogMetadata[] }).items;
}

describe('catalogd render --content-profile lean', () => {
  for (const output of ['yaml', 'json']) {
    it(`-o ${output} matches test/golden/render/lean-catalog.${output}`, async () => {
      const got = cli(CATALOG, '--catalog', 'community', '--content-profile', 'lean', '-o', output);
      expect(got.stderr).to.equal('');
      expect(got.status).to.equal(0);
      const file = path.join(GOLDEN, `lean-catalog.${output}`);
      if (UPDATE) await writeFile(file, got.stdout);
      expect(got.stdout).to.equal(await readFile(file, 'utf8'));
    });
  }

  it("prints the controller's lean objects (without owner references)", async () => {
    const base = catalogBaseUrl(DEFAULT_SERVER_URL, 'community');
    const want: CatalogMetadata[] = [];
    await scanCatalog(
      {
        catalog: { name: 'community', uid: '00000000-0000-0000-0000-000000000000' },
        dir: CATALOG,
        maxObjectBytes: 1 << 20,
        contentUrl: (b) => blobUrl(base, b),
        contentProfile: 'lean',
      },
      undefined,
      (obj) => {
        delete obj.metadata.ownerReferences;
        want.push(JSON.parse(JSON.stringify(obj)) as CatalogMetadata);
      },
    );
    const got = await renderJson('lean');
    expect(got).to.deep.equal(want);
    // Lean objects on both packages and both bundles; channels as in full.
    const full = await renderJson();
    const lean = got.filter((o) => o.spec.contentOmitted?.parts);
    expect(lean.map((o) => o.spec.schema)).to.deep.equal([
      'olm.package',
      'olm.bundle',
      'olm.bundle',
    ]);
    expect(got.filter((o) => !o.spec.contentOmitted)).to.deep.equal(
      full.filter((o) => !lean.some((l) => l.metadata.name === o.metadata.name)),
    );
    // The content hash is the full blob's in both.
    const hashes: string[] = [];
    for await (const b of readCatalog(CATALOG, { catalog: 'community' })) hashes.push(b.hash);
    expect(
      got.map((o) => o.metadata.annotations?.['olm.operatorframework.io/content-hash']),
    ).to.deep.equal(hashes);
    // The partial content is printed, not the blob.
    for (const o of lean) {
      const blob = full.find((f) => f.metadata.name === o.metadata.name)!;
      expect(canonicalize(o.spec.content).length).to.be.below(
        canonicalize(blob.spec.content).length,
      );
    }
  });

  it('--content-profile none prints no objects and says why on stderr', () => {
    const note =
      'catalogd render: content profile none: the controller writes no CatalogMetadata objects for catalog community (its content is served over HTTP only)\n';
    const yaml = cli(CATALOG, '--catalog', 'community', '--content-profile', 'none');
    expect([yaml.status, yaml.stdout, yaml.stderr]).to.deep.equal([0, '', note]);
    const json = cli(CATALOG, '--catalog', 'community', '--content-profile', 'none', '-o', 'json');
    expect(json.status).to.equal(0);
    expect(JSON.parse(json.stdout)).to.deep.equal({ apiVersion: 'v1', kind: 'List', items: [] });
  });

  it('the CLI exits 2 on a --content-profile that names no profile', () => {
    const bad = cli(CATALOG, '--content-profile', 'slim');
    expect([bad.status, bad.stderr, bad.stdout]).to.deep.equal([
      2,
      'catalogd render: --content-profile "slim" is not full, lean or none\n',
      '',
    ]);
  });
});

// Compares our parse with upstream's: `opm render` (operator-registry, built from its Go module
// by hack/opm/build.sh and cached) must produce the same blobs for every fixture that parses and
// for a generated catalog, and must fail where we fail (except the documented stricter rules).
// Skipped, saying why, only when opm cannot be built (no Go toolchain or no module proxy).
import { execFile, spawnSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { generateCatalog } from '../../test/support/fbcgen.js';
import { canonicalize } from '../api/v1/index.js';
import { readCatalog } from './catalog.js';
import { BAD_FIXTURES, FIXTURES, GOOD_FIXTURES } from '../../test/fixtures/fbc/expectations.js';
import { DEFAULT_PARSE_LIMITS, parseDocuments } from './parse.js';

const run = promisify(execFile);
const BUILD = path.resolve(FIXTURES, '../../../hack/opm/build.sh');
/** Fixtures that opm accepts and we reject on purpose (docs/fbc.md "Duplicates"). */
const STRICTER_THAN_OPM = new Set(['error-duplicate-bundle', 'error-exact-duplicate']);

/**
 * opm render re-marshals the standard schemas through typed structs: it adds
 * `defaultChannel: ""` to packages, drops empty bundle properties and sorts relatedImages.
 * Undo that for comparison.
 */
function normalize(v: Record<string, unknown>): Record<string, unknown> {
  const o = { ...v };
  if (o.schema === 'olm.package' && o.defaultChannel === '') delete o.defaultChannel;
  if (o.schema === 'olm.bundle' && Array.isArray(o.properties) && o.properties.length === 0)
    delete o.properties;
  if (o.schema === 'olm.bundle' && Array.isArray(o.relatedImages)) {
    o.relatedImages = [...(o.relatedImages as { image: string; name: string }[])].sort((a, b) =>
      a.image + a.name < b.image + b.name ? -1 : 1,
    );
  }
  return o;
}

async function opmBlobs(opm: string, dir: string): Promise<string[]> {
  const { stdout } = await run(opm, ['render', dir, '-o', 'json'], {
    maxBuffer: 1 << 30,
    encoding: 'buffer',
  });
  const out: string[] = [];
  // opm indents its output: a deeply nested blob becomes tens of megabytes of spaces.
  const trusted = { ...DEFAULT_PARSE_LIMITS, maxDocumentBytes: 1 << 30 };
  for await (const d of parseDocuments(Readable.from([stdout]), 'opm-output', trusted))
    out.push(canonicalize(normalize(d.value!)));
  return out.sort();
}

async function ourBlobs(dir: string): Promise<string[]> {
  const out: string[] = [];
  for await (const b of readCatalog(dir, { catalog: 'cmp' }))
    out.push(canonicalize(normalize(b.content)));
  return out.sort();
}

describe('fbc: same blobs as opm render (operator-registry)', function () {
  this.timeout(30 * 60 * 1000);
  let opm = '';

  before(function () {
    const go = spawnSync('go', ['version'], { encoding: 'utf8' });
    if (go.status !== 0) {
      console.log('    skipped: no Go toolchain to build opm (hack/opm/build.sh)');
      this.skip();
    }
    const built = spawnSync(BUILD, { encoding: 'utf8' });
    if (built.status !== 0) {
      console.log(
        `    skipped: opm could not be built: ${built.stderr.trim().split('\n').slice(-3).join(' | ')}`,
      );
      this.skip();
    }
    opm = built.stdout.trim();
  });

  for (const name of Object.keys(GOOD_FIXTURES)) {
    it(`fixture ${name}`, async () => {
      const dir = path.join(FIXTURES, name);
      expect(await ourBlobs(dir)).to.deep.equal(await opmBlobs(opm, dir));
    });
  }

  for (const name of Object.keys(BAD_FIXTURES)) {
    it(`fixture ${name}: ${STRICTER_THAN_OPM.has(name) ? 'opm accepts it, we reject it (documented)' : 'opm fails too'}`, async () => {
      const r = spawnSync(opm, ['render', path.join(FIXTURES, name), '-o', 'json'], {
        encoding: 'utf8',
        maxBuffer: 1 << 28,
      });
      expect(r.status !== 0, r.stderr).to.equal(!STRICTER_THAN_OPM.has(name));
    });
  }

  it('a generated 3 MB catalog (and render time beside ours)', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'fbcgen-'));
    try {
      await generateCatalog(dir, { seed: 7, sizeMB: 3 });
      let t = performance.now();
      const ours = await ourBlobs(dir);
      const oursMs = performance.now() - t;
      t = performance.now();
      const theirs = await opmBlobs(opm, dir);
      const opmMs = performance.now() - t;
      expect(ours.length).to.be.greaterThan(500);
      expect(ours).to.deep.equal(theirs);
      console.log(
        `      ${ours.length} blobs: ours ${oursMs.toFixed(0)} ms (incl. canonicalize), opm render ${opmMs.toFixed(0)} ms (incl. process start)`,
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

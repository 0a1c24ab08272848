// Hostile FBC files against the real controller (issue 28, points 6, 7, 9): each file is put
// in a copy of the sample catalog, pushed to the real registry as a catalog image, and the
// catalog is switched to it from a good revision. The controller runs with the Deployment's
// heap options; it must stay up, refuse the file with a message naming file:line(:col), keep
// the previous revision, and stay within 150 MB of peak RSS. The files are generated here.
import { expect } from 'chai';
import { cp, mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { ClusterCatalog } from '../../src/api/v1/index.js';
import {
  applyCatalog,
  condition,
  getCatalog,
  push,
  sampleDir,
  waitSynced,
} from '../support/catalogs.js';
import type { RunningController } from '../support/controller.js';
import { DEPLOYMENT_HEAP_OPTIONS } from '../support/controller.js';
import { pushAndSync, setUpE2e, tearDownE2e } from '../support/e2e-setup.js';
import { uniqueName } from '../support/names.js';
import { pollUntil } from '../support/poll.js';
import type { Revision } from '../support/revisions.js';
import { matchRevision, revisionInCluster, revisionOf } from '../support/revisions.js';

const MB = 1 << 20;
const PEAK_RSS_LIMIT = 150 * MB;

interface HostileCase {
  title: string;
  /** Path under the catalog root. */
  file: string;
  content: () => string;
  /** The Progressing message must match. */
  message: RegExp;
}

/** A billion-laughs file: 9 levels of 10 aliases each (10^9 nodes once expanded). */
function billionLaughs(): string {
  let s = 'schema: io.example.laughs\na0: &a0 [x, x, x, x, x, x, x, x, x, x]\n';
  for (let i = 1; i < 9; i++)
    s += `a${i}: &a${i} [${Array.from({ length: 10 }, () => `*a${i - 1}`).join(', ')}]\n`;
  return s;
}

const CASES: HostileCase[] = [
  {
    // The red team's file: it killed the controller within 2.3 s. Past the document cap now.
    title: 'a 30 MB scalar repeated by 100 aliases',
    file: 'hostile/alias-30mb.yaml',
    content: () =>
      `schema: io.example.bomb\na: &x ${'a'.repeat(30 * MB)}\nb:\n${'  - *x\n'.repeat(100)}`,
    message:
      /hostile\/alias-30mb\.yaml:1:1: a YAML document is larger than the limit of 8388608 bytes/,
  },
  {
    // Under the document cap, 200 MB once expanded: refused at the alias that passes the cap.
    title: 'a 2 MB scalar repeated by 100 aliases',
    file: 'hostile/alias-2mb.yaml',
    content: () =>
      `schema: io.example.bomb\na: &x ${'a'.repeat(2 * MB)}\nb:\n${'  - *x\n'.repeat(100)}`,
    message:
      /hostile\/alias-2mb\.yaml:6:6: invalid YAML: aliases expand the document past the limit of 8388608 bytes/,
  },
  {
    title: 'a billion laughs',
    file: 'hostile/laughs.yaml',
    content: billionLaughs,
    message:
      /hostile\/laughs\.yaml:\d+:\d+: invalid YAML: aliases expand to more than 1000000 nodes/,
  },
  {
    title: 'YAML flow nesting 100,000 deep',
    file: 'hostile/deep-flow.yaml',
    content: () => `schema: io.example.deep\na: ${'['.repeat(100_000)}${']'.repeat(100_000)}\n`,
    message: /hostile\/deep-flow\.yaml:2:\d+: a YAML document has more than 200000 nodes/,
  },
  {
    title: 'YAML flow nesting 5,000 deep',
    file: 'hostile/deep-flow-5k.yaml',
    content: () => `schema: io.example.deep\na: ${'['.repeat(5000)}${']'.repeat(5000)}\n`,
    message: /hostile\/deep-flow-5k\.yaml:2:1003: invalid YAML: nesting exceeded maxDepth \(1000\)/,
  },
  {
    // Each anchor nests the previous one 900 levels down (the source never passes 901 levels):
    // the value would be 10,801 deep, past what the apiserver stores.
    title: 'YAML aliases chained 10,801 deep',
    file: 'hostile/alias-deep.yaml',
    content: () => {
      let doc = `schema: io.example.deep\na0: &a0 ${'['.repeat(900)}${']'.repeat(900)}\n`;
      for (let k = 1; k <= 11; k++)
        doc += `a${k}: &a${k} ${'['.repeat(900)}*a${k - 1}${']'.repeat(900)}\n`;
      return doc;
    },
    message:
      /hostile\/alias-deep\.yaml:13:912: invalid YAML: aliases nest the document deeper than 9998 levels/,
  },
  {
    title: 'a JSON blob nested 10,001 deep',
    file: 'hostile/deep.json',
    content: () => `{"schema":"io.example.deep","a":${'['.repeat(10_000)}${']'.repeat(10_000)}}`,
    message: /hostile\/deep\.json:1:10030: exceeded max depth of 9998/,
  },
  {
    title: 'one 20 MB line of YAML',
    file: 'hostile/line.yaml',
    content: () => `schema: io.example.line\na: ${'b'.repeat(20 * MB)}`,
    message: /hostile\/line\.yaml:1:1: a YAML document is larger than the limit of 8388608 bytes/,
  },
  {
    title: 'a 20 MB JSON key',
    file: 'hostile/key.json',
    content: () => `{"schema":"io.example.key","${'k'.repeat(20 * MB)}":1}`,
    message: /hostile\/key\.json:1:1: a JSON value is larger than the limit of 8388608 bytes/,
  },
  {
    // 4 MB of `1,`: JSON.parse would build two million values and exhaust the heap.
    title: 'a JSON array of 2 million numbers',
    file: 'hostile/many.json',
    content: () => `{"schema":"io.example.many","a":[${'1,'.repeat(2 * MB)}1]}`,
    message: /hostile\/many\.json:1:\d+: a JSON value has more than 200000 values/,
  },
  {
    // The same in YAML: js-yaml's parser builds an event per node before anything else.
    title: 'a YAML flow sequence of 2 million numbers',
    file: 'hostile/many.yaml',
    content: () => `schema: io.example.many\na: [${'1,'.repeat(2 * MB)}1]\n`,
    message: /hostile\/many\.yaml:2:\d+: a YAML document has more than 200000 nodes/,
  },
  {
    // JSON that fails near its end is re-read as YAML (as operator-registry does): the node
    // bound must hold on that path too.
    title: 'an unterminated JSON array of 2 million numbers',
    file: 'hostile/many-unterminated.json',
    content: () => `{"schema":"io.example.many","a":[${'1,'.repeat(2 * MB)}1]`,
    message: /hostile\/many-unterminated\.json:1:\d+: a JSON value has more than 200000 values/,
  },
];

describe('hostile FBC e2e: the controller under the Deployment heap options', function () {
  this.timeout(300_000);
  let controller: RunningController;
  let tmp = '';
  const name = uniqueName('hostile-fbc');
  let good: ClusterCatalog;
  let goodRevision: Revision;
  let baselineRss = 0;
  let peakRss = 0;

  before(async () => {
    ({ tmp, controller } = await setUpE2e({
      tmpPrefix: 'catalog-hostile-',
      controller: { nodeOptions: DEPLOYMENT_HEAP_OPTIONS },
    }));
    good = await pushAndSync(name, sampleDir, `sample:${uniqueName('v1')}`);
    goodRevision = await revisionOf(sampleDir, name);
    baselineRss = await controller.peakRssBytes();
    console.log(`      peak RSS after a good sync: ${(baselineRss / MB).toFixed(1)} MB`);
  });

  after(async () => {
    console.log(`      peak RSS over the hostile cases: ${(peakRss / MB).toFixed(1)} MB`);
    await tearDownE2e({ controllers: [controller], catalogs: [name], tmp });
  });

  /** Pushes the sample catalog plus `file` by a new tag and switches the catalog to it. */
  async function switchTo(file: string, content: string): Promise<void> {
    const dir = path.join(tmp, uniqueName('case'));
    await cp(sampleDir, dir, { recursive: true });
    await mkdir(path.dirname(path.join(dir, file)), { recursive: true });
    await writeFile(path.join(dir, file), content);
    const tag = uniqueName('hostile');
    await push(dir, `hostile-fbc:${tag}`);
    await rm(dir, { recursive: true, force: true });
    await applyCatalog(name, `${process.env.REGISTRY}/e2e/hostile-fbc:${tag}`);
  }

  async function expectUpAndBounded(what: string): Promise<void> {
    expect(controller.alive(), `the controller is alive after ${what}`).to.equal(true);
    expect((await fetch(`${controller.healthUrl}/healthz`)).ok, '/healthz').to.equal(true);
    const rss = await controller.peakRssBytes();
    peakRss = Math.max(peakRss, rss);
    console.log(`      peak RSS so far: ${(rss / MB).toFixed(1)} MB`);
    expect(rss, `peak RSS after ${what}`).to.be.at.most(PEAK_RSS_LIMIT);
  }

  for (const c of CASES) {
    it(`refuses ${c.title}, stays up and keeps the previous revision`, async () => {
      await switchTo(c.file, c.content());
      const failed = await pollUntil(
        async () => {
          if (!controller.alive()) throw new Error('the controller exited');
          const cat = await getCatalog(name);
          const p = condition(cat, 'Progressing');
          return p?.reason === 'Retrying' && p.observedGeneration === cat.metadata.generation
            ? cat
            : undefined;
        },
        { timeoutMs: 60_000, what: `Progressing=Retrying for ${c.file}` },
      );
      expect(condition(failed, 'Progressing')?.message ?? '').to.match(c.message);
      expect(condition(failed, 'Serving')?.status).to.equal('True');
      expect(failed.status?.contentHash).to.equal(good.status?.contentHash);
      const { match, detail } = matchRevision(await revisionInCluster(name), {
        good: goodRevision,
      });
      expect(match, detail).to.equal('good');
      await expectUpAndBounded(c.title);
    });
  }

  it('syncs a JSON blob 9,000 deep holding a lone surrogate escape (opm accepts it)', async () => {
    const file = 'deep/lone-surrogate.json';
    const deep = `{"schema":"io.example.deep","name":"lone","a":${'['.repeat(9000)}"\\ud800"${']'.repeat(9000)}}`;
    const dir = path.join(tmp, uniqueName('deep'));
    await cp(sampleDir, dir, { recursive: true });
    await mkdir(path.join(dir, 'deep'));
    await writeFile(path.join(dir, file), deep);
    const expected = await revisionOf(dir, name);
    await applyCatalog(name, await push(dir, `hostile-fbc:${uniqueName('deep')}`));
    const synced = await waitSynced(name, good.status?.contentHash);
    expect(synced.status?.objectCount).to.equal(expected.size);
    const { match, detail } = matchRevision(await revisionInCluster(name), { deep: expected });
    expect(match, detail).to.equal('deep');
    // The HTTP server serves it too, the lone surrogate replaced by U+FFFD as Go does.
    const res = await fetch(`${controller.serverUrl}/catalogs/${name}/api/v1/all`, {
      headers: { 'accept-encoding': 'identity' },
    });
    expect(res.status).to.equal(200);
    const served = await res.text();
    expect(served).to.contain(`${'['.repeat(9000)}"\uFFFD"${']'.repeat(9000)}`);
    await expectUpAndBounded('the deep blob');
  });
});

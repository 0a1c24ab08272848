// Hostile catalogs against catalogd-ts as deployed (issue 33, point 5): the image on the local
// node, `make deploy` (config/default: 2 replicas, the Deployment's memory limit, heap options
// and cache volume with its sizeLimit), fed the red team's cases in one sequence, back to back:
// the .indexignore pattern that once stopped the event loop, 100,000 entries, a 5 MB blob,
// 60 MB of YAML documents and of JSON values, refused images that once filled the cache, and a
// layer declaring 1.6 GB. After every case each pod is the same pod (never evicted), with no
// restart and no OOM kill; both replicas serve the new revision (each builds it from the image).
// Per case it prints each pod's peak RSS (VmHWM of the container's process, read from the host
// and reset before the case) and its cache volume's size on the node. Needs NODE=1.
import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { ClusterCatalog } from '../../src/api/v1/index.js';
import type { BlobSource } from '../../src/source/pusher.js';
import {
  applyCatalog,
  condition,
  getCatalog,
  installCrds,
  waitProgressing,
  waitSynced,
} from '../support/catalogs.js';
import {
  controllerPods,
  deployCatalogdTs,
  undeployCatalogdTs,
} from '../support/catalogd-deployment.js';
import { localDir } from '../support/cluster.js';
import { kubectl } from '../support/kubectl.js';
import { uniqueName } from '../support/names.js';
import { pollUntil } from '../support/poll.js';
import {
  gzipLayer,
  largeDocuments,
  manyEntriesLayer,
  pushLayers,
  putManifestDeclaring,
  sampleEntries,
} from '../support/registry-layers.js';
import type { TarEntry } from '../support/registry-layers.js';

const MB = 1 << 20;
/** config/manager/deployment.yaml's memory limit and cache volume sizeLimit. */
const MEMORY_LIMIT = 384 * MB;
const CACHE_LIMIT = 1536 * MB;

interface PodState {
  name: string;
  uid: string;
  ip: string;
  restarts: number;
  /** Why the container last ended (OOMKilled, Error), if it ever did. */
  lastTerminated: string | undefined;
  /** containerd's container ID. */
  containerId: string;
}

async function podStates(): Promise<PodState[]> {
  return (await controllerPods())
    .filter((p) => !p.metadata.deletionTimestamp)
    .map((p) => {
      const c = p.status.containerStatuses?.[0];
      return {
        name: p.metadata.name,
        uid: p.metadata.uid ?? '',
        ip: p.status.podIP ?? '',
        restarts: c?.restartCount ?? 0,
        lastTerminated: c?.lastState?.terminated?.reason,
        containerId: (c?.containerID ?? '').replace(/^containerd:\/\//, ''),
      };
    })
    .sort((a, b) => a.name.localeCompare(b.name));
}

/** The host PID of a container's controller process (this machine is the node). */
async function hostPid(containerId: string): Promise<number> {
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const cgroup = await readFile(`/proc/${entry}/cgroup`, 'utf8').catch(() => '');
    if (!cgroup.includes(containerId)) continue;
    const cmdline = await readFile(`/proc/${entry}/cmdline`, 'utf8').catch(() => '');
    if (cmdline.includes('catalogd.js')) return Number(entry);
  }
  throw new Error(`no controller process in container ${containerId}`);
}

async function peakRss(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return Number(/^VmHWM:\s+(\d+) kB$/m.exec(status)?.[1]) * 1024;
}

/** Bytes in a pod's cache volume on the node (its emptyDir, under the kubelet's root). */
async function cacheBytes(uid: string): Promise<number> {
  const dir = path.join(
    localDir,
    'cluster',
    'node',
    'kubelet',
    'pods',
    uid,
    'volumes',
    'kubernetes.io~empty-dir',
    'cache',
  );
  // Files may go while du walks (an image being removed): it then says so on stderr and exits
  // 1, with the total of what it found.
  const du = spawn('du', ['-sb', dir], { stdio: ['ignore', 'pipe', 'ignore'] });
  let out = '';
  du.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
  await new Promise((resolve) => du.once('close', resolve));
  const bytes = Number(out.split('\t')[0]);
  if (!Number.isFinite(bytes) || out === '') throw new Error(`du ${dir}: no total`);
  return bytes;
}

describe('hostile catalogs against catalogd-ts deployed on the node (make deploy)', function () {
  this.timeout(20 * 60 * 1000);
  const name = uniqueName('hostile-node');
  const repo = () => `${process.env.REGISTRY}/e2e/hostile-node`;
  let pods: PodState[] = [];
  let last: ClusterCatalog | undefined;
  const rows: string[] = [];

  before(async function () {
    if (!process.env.NODE_REGISTRY) this.skip(); // a cluster started without NODE=1
    this.timeout(30 * 60 * 1000);
    await installCrds();
    await deployCatalogdTs(uniqueName('e2e-hostile'));
    pods = await pollUntil(
      async () => {
        const p = await podStates();
        return p.length === 2 && p.every((x) => x.ip && x.containerId) ? p : undefined;
      },
      { timeoutMs: 180_000, what: 'two controller pods' },
    );
  });

  after(async function () {
    if (!process.env.NODE_REGISTRY) return;
    this.timeout(3 * 60 * 1000);
    console.log(`      per pod: peak RSS / cache volume, MB\n        ${rows.join('\n        ')}`);
    await kubectl(['delete', 'clustercatalog', name, '--ignore-not-found', '--wait=false']);
    await undeployCatalogdTs();
  });

  /** Every pod is the one the suite started with: not evicted, not restarted, not OOM-killed. */
  async function expectSamePods(): Promise<void> {
    const now = await podStates();
    expect(
      now.map((p) => p.uid),
      'pod UIDs (an evicted pod is replaced)',
    ).to.deep.equal(pods.map((p) => p.uid));
    for (const p of now) {
      expect(p.restarts, `${p.name} restarts`).to.equal(0);
      expect(p.lastTerminated, `${p.name} last termination`).to.equal(undefined);
    }
  }

  /** Resets each pod's VmHWM (proc(5), clear_refs: 5); returns the PIDs. */
  async function resetPeaks(): Promise<number[]> {
    const pids = await Promise.all(pods.map((p) => hostPid(p.containerId)));
    for (const pid of pids) await writeFile(`/proc/${pid}/clear_refs`, '5');
    return pids;
  }

  /** Each replica answers the catalog's current revision URL (it has built that revision). */
  async function waitEveryReplicaServes(cat: ClusterCatalog): Promise<void> {
    const base = cat.status?.urls?.base ?? '';
    const pathPart = new URL(base).pathname;
    for (const p of pods) {
      await pollUntil(
        async () =>
          (await fetch(`http://${p.ip}:8090${pathPart}/api/v1/all`, { method: 'HEAD' })).status ===
          200,
        { timeoutMs: 300_000, intervalMs: 500, what: `${p.name} to serve ${pathPart}` },
      );
    }
  }

  async function record(title: string, pids: number[]): Promise<void> {
    const cells: string[] = [];
    for (const [i, p] of pods.entries()) {
      const peak = await peakRss(pids[i]!);
      const cache = await cacheBytes(p.uid);
      cells.push(`${(peak / MB).toFixed(0)} / ${(cache / MB).toFixed(0)}`);
      expect(peak, `${p.name} peak RSS`).to.be.below(MEMORY_LIMIT);
      expect(cache, `${p.name} cache volume`).to.be.below(CACHE_LIMIT);
    }
    rows.push(`${title}: ${cells.join('; ')}`);
    await expectSamePods();
  }

  async function pushImage(layers: BlobSource[]): Promise<string> {
    const d = await pushLayers(`${repo()}:${uniqueName('c')}`, layers);
    // The same registry, as pods reach it.
    return `${process.env.NODE_REGISTRY}/e2e/hostile-node@${d.digest}`;
  }

  /** Applies an image of `entries` (beside the sample catalog); waits until both pods serve it. */
  async function syncs(title: string, layers: BlobSource[]): Promise<void> {
    const pids = await resetPeaks();
    await applyCatalog(name, await pushImage(layers));
    last = await waitSynced(name, last?.status?.contentHash, 600_000);
    await waitEveryReplicaServes(last);
    await record(title, pids);
  }

  const withSample = async (extra: TarEntry[]) => [
    await gzipLayer([...(await sampleEntries()), ...extra]),
  ];

  it('syncs past the .indexignore pattern that stopped the event loop', async () => {
    const deep = 'a/'.repeat(60);
    await syncs(
      '.indexignore pattern',
      await withSample([
        { name: 'configs/.indexignore', body: `${'**/a/'.repeat(14)}b\n` },
        {
          name: `configs/${deep}deep.json`,
          body: '{"schema":"io.example.deep","name":"sixty-deep"}\n',
        },
        { name: `configs/${deep}b`, body: 'not FBC\n' },
      ]),
    );
  });

  it('syncs 100,000 entries', async () => {
    await syncs('100,000 entries', [
      await gzipLayer(await sampleEntries()),
      await manyEntriesLayer(100_000),
    ]);
  });

  it('syncs a 5 MB blob', async () => {
    await syncs(
      'a 5 MB blob',
      await withSample([
        { name: 'configs/big/blob.json', body: largeDocuments('json', 1, 5 * MB) },
      ]),
    );
  });

  it('syncs 60 MB of YAML documents of 7.5 MB', async () => {
    await syncs(
      '60 MB YAML',
      await withSample([
        { name: 'configs/big/docs.yaml', body: largeDocuments('yaml', 8, 7.5 * MB) },
      ]),
    );
  });

  it('syncs 60 MB of JSON values of 7.5 MB', async () => {
    await syncs(
      '60 MB JSON',
      await withSample([
        { name: 'configs/big/docs.json', body: largeDocuments('json', 8, 7.5 * MB) },
      ]),
    );
  });

  it('keeps the cache volume to what is served after 8 refused images of 32 MiB', async () => {
    const served = await Promise.all(pods.map((p) => cacheBytes(p.uid)));
    const pids = await resetPeaks();
    for (let i = 0; i < 8; i++) {
      // Refused at parse time (the bad file is walked first), after the whole image is unpacked.
      const ref = await pushImage(
        await withSample([
          { name: 'configs/a-bad/bad.json', body: `{"schema":"io.example.bad","n":${i}` },
          { name: 'configs/zz/filler.txt', body: Buffer.alloc(32 * MB, `${i}`) },
        ]),
      );
      await applyCatalog(name, ref);
      await waitProgressing(name, 'Blocked', /a-bad\/bad\.json/, { what: `refused image ${i}` });
    }
    // Each refused image leaves the cache at the end of its attempt (asynchronously).
    for (const [i, p] of pods.entries())
      await pollUntil(async () => (await cacheBytes(p.uid)) <= served[i]! + MB, {
        timeoutMs: 60_000,
        what: `${p.name}'s cache back to what it serves`,
      });
    const cat = await getCatalog(name);
    expect(condition(cat, 'Serving')?.status).to.equal('True');
    expect(cat.status?.resolvedSource).to.deep.equal(last?.status?.resolvedSource);
    await record('8 refused images', pids);
  });

  it('refuses a layer declaring 1.6 GB, the cache volume unchanged', async () => {
    const layer = await gzipLayer([{ name: 'configs/x.json', body: '{"schema":"io.example.x"}' }]);
    const real = await pushLayers(`${repo()}:${uniqueName('l')}`, [layer]);
    const repoUrl = `http://${process.env.REGISTRY}/v2/e2e/hostile-node`;
    const tag = uniqueName('declared');
    const put = await putManifestDeclaring(repoUrl, real.digest, 1_677_729_792, tag);
    expect(put.status, await put.text()).to.equal(201);
    const served = await Promise.all(pods.map((p) => cacheBytes(p.uid)));
    const pids = await resetPeaks();
    await applyCatalog(name, `${process.env.NODE_REGISTRY}/e2e/hostile-node:${tag}`);
    await waitProgressing(name, 'Retrying', /its layers declare 1677729792 bytes/, {
      what: 'the declared size',
    });
    for (const [i, p] of pods.entries())
      expect(await cacheBytes(p.uid), `${p.name} cache`).to.be.at.most(served[i]! + MB);
    await record('layer declaring 1.6 GB', pids);
  });
});

// The served view (issue 55, docs/served.md) as users deploy it: `make image`, then `make deploy
// VIEW=served` (config/default with config/tls and config/served: 2 replicas behind the APIService)
// on the local node (NODE=1; make test always starts it). Through the real aggregation layer:
// - `kubectl get catalogmetadata.content.olm.operatorframework.io -l package=X` answers the names
//   `catalogd render --object-view served` prints;
// - the checks served-view.test.ts makes of a controller on this host (test/support/served-checks.ts):
//   discovery and kubectl explain, `-o wide`, field selectors, pagination (limit/continue and
//   --chunk-size, across whichever replicas answer the pages), 403 for a user without `list` and
//   the objects once RBAC grants it, 401 for a connection straight to each pod's API port (9443,
//   by pod IP from the host: the node's pod bridge) without the front-proxy certificate, and
//   `kubectl diff` of render's output (--server-url config/tls's) exiting 0;
// - a client-go shared informer (hack/informer-check, the client-go operator-controller v1.5.1
//   builds with) watches the catalog's objects while 3 catalog updates land: the first while the
//   leader pod is deleted (the Lease moves), the second during `kubectl rollout restart` (both pods
//   replaced, so every watch ends and resumes on another replica), the third after it. Each update's
//   ADD/UPDATE/DELETE events arrive exactly once, the informer's store equals a fresh list, and the
//   reflector lists once: a watch resumed from a resourceVersion on the other replica needs no
//   relist (resourceVersions mean the same on every replica).
// At the end everything but the CRDs is deleted: later suites run their own controllers.
import { expect } from 'chai';
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { loadAll } from 'js-yaml';
import { SERVED_GROUP } from '../../src/api/v1/index.js';
import { applyCatalog, push, sampleDir, waitSynced, writeSampleV2 } from '../support/catalogs.js';
import {
  CATALOGD_NS as NS,
  controllerPods,
  deployCatalogdTs,
  isReady,
  undeployCatalogdTs,
} from '../support/catalogd-deployment.js';
import {
  startInformer,
  type InformerLine,
  type RunningInformer,
} from '../support/informer-check.js';
import { kubectl, kubectlOk } from '../support/kubectl.js';
import { uniqueName } from '../support/names.js';
import { pollUntil } from '../support/poll.js';
import { renderTo } from '../support/render.js';
import { forgetServedGroup } from '../support/served-api.js';
import type { ServedItem as Item, ServedTarget } from '../support/served-checks.js';
import {
  SERVED_RESOURCE as RESOURCE,
  deleteReader,
  expectDirectRefused,
  itChecksTheServedView,
} from '../support/served-checks.js';

const CONTENT_HASH = 'olm.operatorframework.io/content-hash';
/** config/tls's --server-url: what status.urls.base and render's blob URLs start with. */
const SERVER_URL = `https://catalogd-ts.${NS}.svc:443`;
/** The Service's name, which the serving certificate names (not the pods' IPs). */
const SERVICE_NAME = `catalogd-ts.${NS}.svc`;
/** config/served's --api-listen port: the served API on every replica. */
const API_PORT = 9443;

/** The registry as pods reach it. */
const onNode = (ref: string) =>
  ref.replace(process.env.REGISTRY ?? '', process.env.NODE_REGISTRY ?? '');

/** A fresh list of the catalog's served objects: name → content-hash annotation. */
async function freshList(catalog: string): Promise<Map<string, string>> {
  const out = await kubectlOk(['get', RESOURCE, '-l', `catalog=${catalog}`, '-o', 'json']);
  const items = (JSON.parse(out) as { items: Item[] }).items;
  return new Map(items.map((i) => [i.metadata.name, i.metadata.annotations?.[CONTENT_HASH] ?? '']));
}

/** The events that take a store from `before` to `after`, one line each, sorted. */
function expectedEvents(before: Map<string, string>, after: Map<string, string>): string[] {
  const out: string[] = [];
  for (const [name, hash] of after) {
    if (!before.has(name)) out.push(`ADD ${name} ${hash}`);
    else if (before.get(name) !== hash) out.push(`UPDATE ${name} ${hash}`);
  }
  for (const [name, hash] of before) if (!after.has(name)) out.push(`DELETE ${name} ${hash}`);
  return out.sort();
}

const eventLine = (l: InformerLine) => `${l.event} ${l.name} ${l.contentHash}`;

/** The informer's lines of its reflector (lists, watches, errors: no object), for failure messages. */
const reflectorDid = (lines: readonly InformerLine[]) =>
  JSON.stringify(lines.filter((l) => !l.name));

const sameMap = (a: Map<string, string>, b: Map<string, string>) =>
  a.size === b.size && [...a].every(([k, v]) => b.get(k) === v);

async function leaseHolder(): Promise<string> {
  return kubectlOk([
    ...['-n', NS, 'get', 'lease', 'catalogd-ts-leader'],
    ...['-o', 'jsonpath={.spec.holderIdentity}'],
  ]);
}

describe('served view on the node: 2 replicas behind the APIService, a client-go informer across failover and rollout', function () {
  this.timeout(15 * 60 * 1000);
  const catalog = uniqueName('served-node');
  const tag = uniqueName('served-node');
  const reader = uniqueName('served-node-reader');
  let tmp = '';
  let informer: RunningInformer | undefined;
  let v2 = '';
  let ca = '';
  let rendered: Item[] = [];
  let renderedFile = '';
  const target = (): ServedTarget => ({ catalog, rendered, renderedFile });

  before(async function () {
    if (!process.env.NODE_REGISTRY) this.skip(); // a cluster without NODE=1
    tmp = await mkdtemp(path.join(os.tmpdir(), 'served-node-'));
    ({ ca = '' } = await deployCatalogdTs(tag, { served: true }));
    await kubectlOk([
      ...['wait', '--for=condition=Available', '--timeout=120s'],
      `apiservice/v1.${SERVED_GROUP}`,
    ]);
    const ref = await push(sampleDir, `${catalog}:${uniqueName('v1')}`);
    await applyCatalog(catalog, onNode(ref));
    await waitSynced(catalog, undefined, 180_000);
    renderedFile = path.join(tmp, 'rendered.yaml');
    await renderTo(sampleDir, renderedFile, [
      ...['--catalog', catalog, '--server-url', SERVER_URL, '--object-view', 'served'],
    ]);
    rendered = loadAll(await readFile(renderedFile, 'utf8')) as Item[];
  });

  after(async () => {
    if (!process.env.NODE_REGISTRY) return;
    if (informer) await informer.stop().catch(() => undefined);
    await deleteReader(reader);
    await kubectl(['delete', 'clustercatalog', catalog, '--ignore-not-found', '--wait=false']);
    await undeployCatalogdTs();
    await forgetServedGroup(); // later suites' kubectl must not resolve catalogmetadata to it
    for (const dir of [tmp, v2]) if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('answers `kubectl get -l package=X` with the names `catalogd render --object-view served` prints', async () => {
    const pkg = 'example-operator';
    const want = rendered
      .filter((o) => o.spec.package === pkg)
      .map((o) => o.metadata.name)
      .sort();
    expect(want.length).to.be.greaterThan(0);
    // Served by whichever replica the aggregator picks: ask a few times.
    for (let i = 0; i < 4; i++) {
      const got = await kubectlOk([
        ...['get', RESOURCE, '-l', `package=${pkg},catalog=${catalog}`],
        ...['-o', 'jsonpath={range .items[*]}{.metadata.name}{"\\n"}{end}'],
      ]);
      expect(got.trim().split('\n').sort()).to.deep.equal(want);
    }
    expect([...(await freshList(catalog)).keys()].sort()).to.deep.equal(
      rendered.map((o) => o.metadata.name).sort(),
    );
  });

  itChecksTheServedView({
    suffix: ', on the node',
    target,
    reader,
    directName:
      "refuses a direct connection to each pod's API port without the front-proxy certificate (401)",
    direct: async () => {
      const ips = (await controllerPods()).filter(isReady).map((p) => p.status.podIP ?? '');
      expect(ips).to.have.length(2);
      for (const ip of ips)
        await expectDirectRefused(`https://${ip}:${API_PORT}`, ca, SERVICE_NAME);
    },
  });

  // Last: it restarts the pods.
  it('a client-go informer sees each of 3 updates once across a leader failover and a rolling update, with one LIST', async () => {
    informer = await startInformer(`catalog=${catalog}`);
    let state = await freshList(catalog);
    expect(sameMap(informer.view(), state)).to.equal(true);
    v2 = await writeSampleV2();
    const withRevision = async (base: string, update: number) => {
      const dir = path.join(tmp, `u${update}`);
      await cp(base, dir, { recursive: true });
      await writeFile(
        path.join(dir, 'revision.json'),
        `${JSON.stringify({ schema: 'e2e.revision', name: 'r', update })}\n`,
      );
      return dir;
    };
    let hash = (await waitSynced(catalog)).status?.contentHash;
    let seen = 0; // informer events accounted for so far
    const expectedAll: string[] = [];

    /**
     * Pushes `dir`, calls `start` (the disruption begins), points the catalog at it, calls
     * `finish` (the disruption is over), waits for the sync, then for the informer to reach a
     * fresh list's state, and checks the events that took it there.
     */
    async function update(
      dir: string,
      start: () => Promise<void>,
      finish: () => Promise<void>,
    ): Promise<void> {
      const ref = await push(dir, `${catalog}:${uniqueName('u')}`);
      await start();
      await applyCatalog(catalog, onNode(ref));
      await finish();
      hash = (await waitSynced(catalog, hash, 240_000)).status?.contentHash;
      const next = await pollUntil(
        async () => {
          const fresh = await freshList(catalog);
          return sameMap(fresh, state) ? undefined : fresh;
        },
        { timeoutMs: 60_000, what: 'the served list to show the update' },
      );
      await pollUntil(async () => sameMap(informer!.view(), next), {
        timeoutMs: 120_000,
        what: 'the informer to see the update',
      });
      const want = expectedEvents(state, next);
      expect(want.length, 'the update changes objects').to.be.greaterThan(0);
      const events = informer!.events();
      const got = events.slice(seen).map(eventLine).sort();
      expect(
        got,
        `each changed object once; the reflector: ${reflectorDid(informer!.lines)}`,
      ).to.deep.equal(want);
      seen = events.length;
      expectedAll.push(...want);
      state = next;
    }

    // (a) Failover: the leader pod goes (its preStop, then the Lease released) while update 1 lands.
    const holder = await pollUntil(async () => (await leaseHolder()) || undefined, {
      timeoutMs: 60_000,
      what: 'a Lease holder',
    });
    const leader = (await controllerPods()).find((p) => holder.startsWith(`${p.metadata.name}_`));
    expect(leader, `the Lease holder ${holder} is a pod`).to.not.equal(undefined);
    await update(
      v2,
      async () => {
        await kubectlOk(['-n', NS, 'delete', 'pod', leader!.metadata.name, '--wait=false']);
      },
      async () => {
        await pollUntil(
          async () => {
            const h = await leaseHolder();
            return h && !h.startsWith(`${leader!.metadata.name}_`);
          },
          { timeoutMs: 150_000, what: `the Lease to pass from ${leader!.metadata.name}` },
        );
      },
    );
    await kubectlOk(['-n', NS, 'rollout', 'status', 'deployment/catalogd-ts', '--timeout=180s']);

    // (b) Rolling update: both pods replaced, so any watch open on them ends and resumes.
    const podsBefore = (await controllerPods()).map((p) => p.metadata.name);
    await update(
      await withRevision(v2, 2),
      async () => {
        await kubectlOk(['-n', NS, 'rollout', 'restart', 'deployment/catalogd-ts']);
      },
      async () => {
        await kubectlOk([
          ...['-n', NS, 'rollout', 'status', 'deployment/catalogd-ts', '--timeout=240s'],
        ]);
      },
    );
    // `rollout status` returns while old pods may still be terminating (and serving a watch).
    await pollUntil(
      async () => !(await controllerPods()).some((p) => podsBefore.includes(p.metadata.name)),
      { timeoutMs: 120_000, what: 'the old pods to be gone' },
    );
    expect((await controllerPods()).filter(isReady)).to.have.length(2);

    // (c) After the rollout, on the new pods: back to the sample (a bundle deleted, a channel
    // changed back) with the revision blob changed.
    const nothing = async () => undefined;
    await update(await withRevision(sampleDir, 3), nothing, nothing);

    const store = await informer.stop();
    const { lines } = informer;
    const all = informer.events().map(eventLine).sort();
    informer = undefined;
    const final = await freshList(catalog);
    expect(new Map(Object.entries(store)), "the informer's store is a fresh list").to.deep.equal(
      final,
    );
    expect(all, 'no event repeated or late').to.deep.equal(expectedAll.sort());
    const watches = lines.filter((l) => l.event === 'WATCH' && !l.error);
    // The watch was resumed at least once (the rollout replaced the pod serving it), each time
    // from a resourceVersion: a relist would show as a second LIST.
    expect(watches.length, reflectorDid(lines)).to.be.greaterThan(1);
    const lists = lines.filter((l) => l.event === 'LIST');
    expect(lists, reflectorDid(lines)).to.have.length(1);
  });
});

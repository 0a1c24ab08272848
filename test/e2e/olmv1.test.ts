// OLM v1 end to end (issue 37): the consumer catalogd exists for. On the local node (NODE=1;
// make test always has it), beside each other:
// - catalogd-ts from its image (make image), 2 replicas, HTTPS (config/tls, hack/serving-cert.sh);
// - operator-controller v1.5.1 from its static binary in an image built here (hack/olmv1/image.sh),
//   installed from upstream's release manifest without its catalogd parts (docs/olmv1.md; the
//   Secret olmv1-cert from openssl instead of cert-manager), its RBAC unchanged.
// The test builds registry+v1 bundle images of one package (0.1.0, 0.2.0, 0.3.0: a CSV whose
// Deployment runs the node's pause image, a CRD, metadata/annotations.yaml) and catalogs over
// them, and checks what operator-controller does with a ClusterExtension: it refuses the content
// until it trusts catalogd-ts's CA; installs 0.1.0 (its objects in the apiserver, the pod running);
// upgrades to a new channel head; honours a channel and a version pin; reports the catalog's
// deprecations; leaves an Unavailable catalog out of resolution; and after each of 20 catalog
// updates installs the new head: a replica answering a stale 200 for a new revision would make
// operator-controller keep (and cache, by image ref) the old content, so that update never lands.
import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import type { ClusterCatalog } from '../../src/api/v1/index.js';
import { KubeClient, Resource } from '../../src/kube/index.js';
import { applyCatalog, condition, getCatalog, push, waitSynced } from '../support/catalogs.js';
import {
  controllerPods,
  deployCatalogdTs,
  enforcedProfile,
  isReady,
  undeployCatalogdTs,
} from '../support/catalogd-deployment.js';
import { repoRoot } from '../support/cluster.js';
import { kubectl, kubectlOk } from '../support/kubectl.js';
import { uniqueName } from '../support/names.js';
import {
  CONTENT_ANNOTATION,
  pushBundleImage,
  WIDGET_CRD,
  writePackageCatalog,
  type CatalogBundle,
  type CatalogChannel,
  type Deprecation,
} from '../support/olm-bundles.js';
import {
  installOperatorController,
  OLM_NS,
  OPERATOR_CONTROLLER,
  uninstallOperatorController,
} from '../support/operator-controller.js';
import { pollUntil } from '../support/poll.js';

const run = promisify(execFile);
const UPDATES = 20;
const PKG = 'olmv1-e2e';
/** How long one catalog update may take to be installed before it counts as stale. */
const UPDATE_DEADLINE_MS = 60_000;

interface Condition {
  type: string;
  status: string;
  reason: string;
  message: string;
  observedGeneration?: number;
}

interface ClusterExtension {
  metadata: { name: string; generation?: number };
  status?: {
    conditions?: Condition[];
    install?: { bundle: { name: string; version: string } };
  };
}

interface Crd {
  metadata: { name: string; annotations?: Record<string, string> };
}

/** The registry as pods (catalogd-ts, operator-controller, containerd) reach it. */
const onNode = (ref: string) =>
  ref.replace(process.env.REGISTRY ?? '', process.env.NODE_REGISTRY ?? '');

const cond = (e: ClusterExtension, type: string) =>
  e.status?.conditions?.find((c) => c.type === type);

describe('OLM v1: operator-controller v1.5.1 beside catalogd-ts (2 replicas, HTTPS) on the node', function () {
  this.timeout(10 * 60 * 1000);
  const catalog = uniqueName('olmv1');
  const ext = uniqueName('olmv1-ext');
  const installNs = ext;
  const tag = uniqueName('olmv1');
  // The three bundles: version → bundle image (digest, as pods pull it).
  const images = new Map<string, string>();
  const dirs: string[] = [];
  let ca = '';
  let operatorControllerImage = '';
  let client: KubeClient;
  let extensions: Resource<ClusterExtension>;
  let crds: Resource<Crd>;

  const bundle = (version: string, content = version): CatalogBundle => ({
    name: `${PKG}.v${version}`,
    version,
    image: images.get(content)!,
  });
  const entry = (version: string, replaces?: string) => ({
    name: `${PKG}.v${version}`,
    ...(replaces && { replaces: `${PKG}.v${replaces}` }),
  });
  /** stable: 0.1.0 → 0.2.0; candidate: → 0.3.0 (a successor that only candidate has). */
  const v2Channels: CatalogChannel[] = [
    { name: 'stable', entries: [entry('0.1.0'), entry('0.2.0', '0.1.0')] },
    {
      name: 'candidate',
      entries: [entry('0.1.0'), entry('0.2.0', '0.1.0'), entry('0.3.0', '0.2.0')],
    },
  ];
  const v2Bundles = () => ['0.1.0', '0.2.0', '0.3.0'].map((v) => bundle(v));

  /** Pushes a catalog image and points the ClusterCatalog at it; returns once catalogd-ts serves it. */
  async function publish(
    channels: CatalogChannel[],
    bundles: CatalogBundle[],
    deprecations: Deprecation[] = [],
  ): Promise<ClusterCatalog> {
    const dir = await writePackageCatalog(PKG, 'stable', channels, bundles, deprecations);
    dirs.push(dir);
    const before = (await getCatalog(catalog).catch(() => undefined))?.status?.contentHash;
    const ref = await push(dir, `${catalog}:${uniqueName('v')}`);
    await applyCatalog(catalog, onNode(ref));
    return waitSynced(catalog, before, 120_000);
  }

  async function setAvailability(mode: 'Available' | 'Unavailable'): Promise<void> {
    await kubectlOk([
      'patch',
      'clustercatalog',
      catalog,
      '--type=merge',
      '-p',
      JSON.stringify({ spec: { availabilityMode: mode } }),
    ]);
  }

  async function getExt(): Promise<ClusterExtension> {
    return extensions.get(ext);
  }

  /** Merge-patches the ClusterExtension's spec.source.catalog; returns the new generation. */
  async function patchSource(catalogSource: Record<string, unknown>): Promise<number> {
    const patched = await extensions.mergePatch(ext, {
      spec: { source: { catalog: catalogSource } },
    });
    return patched.metadata.generation ?? 0;
  }

  /** Waits until operator-controller's Progressing says `reason` for generation `gen`. */
  async function reconciled(gen: number, reason: string, what: string): Promise<ClusterExtension> {
    return pollUntil(
      async () => {
        const e = await getExt();
        const p = cond(e, 'Progressing');
        return p && (p.observedGeneration ?? 0) >= gen && p.reason === reason ? e : undefined;
      },
      { timeoutMs: 120_000, intervalMs: 500, what: `${what}: Progressing ${reason}` },
    );
  }

  async function installedVersion(version: string, timeoutMs = 120_000) {
    return pollUntil(
      async () => {
        const e = await getExt();
        const installed = cond(e, 'Installed');
        return e.status?.install?.bundle.version === version && installed?.status === 'True'
          ? e
          : undefined;
      },
      { timeoutMs, intervalMs: 250, what: `${ext} to have ${version} installed` },
    );
  }

  async function crdContent(): Promise<string | undefined> {
    try {
      return (await crds.get(WIDGET_CRD)).metadata.annotations?.[CONTENT_ANNOTATION];
    } catch {
      return undefined;
    }
  }

  before(async function () {
    if (!process.env.NODE_REGISTRY) this.skip(); // a cluster started without NODE=1
    this.timeout(30 * 60 * 1000); // the first run builds images (and operator-controller)
    client = new KubeClient({ kubeconfig: process.env.KUBECONFIG ?? '', maxSockets: 2 });
    extensions = new Resource<ClusterExtension>(client, {
      group: 'olm.operatorframework.io',
      version: 'v1',
      plural: 'clusterextensions',
    });
    crds = new Resource<Crd>(client, {
      group: 'apiextensions.k8s.io',
      version: 'v1',
      plural: 'customresourcedefinitions',
    });
    const deployed = await deployCatalogdTs(tag, { https: true });
    ca = deployed.ca ?? '';
    const { stdout } = await run(path.join(repoRoot, 'hack', 'olmv1', 'image.sh'), [], {
      maxBuffer: 1 << 26,
    });
    operatorControllerImage = onNode(stdout.trim());
    // Installed first without catalogd-ts's CA: the first case shows what that does.
    await installOperatorController({ image: operatorControllerImage });
    const pause = `${process.env.NODE_REGISTRY}/pause:local`;
    for (const version of ['0.1.0', '0.2.0', '0.3.0']) {
      const repo = `${process.env.REGISTRY}/olmv1-e2e/${PKG}-bundle`;
      const digest = await pushBundleImage(`${repo}:v${version}`, {
        pkg: PKG,
        version,
        podImage: pause,
      });
      images.set(version, onNode(`${repo}@${digest}`));
    }
    // The namespace the extension installs into, and the ServiceAccount operator-controller
    // installs with (bound to cluster-admin: what it may install is not under test here).
    await kubectlOk(
      ['apply', '-f', '-'],
      [
        { apiVersion: 'v1', kind: 'Namespace', metadata: { name: installNs } },
        {
          apiVersion: 'v1',
          kind: 'ServiceAccount',
          metadata: { name: 'installer', namespace: installNs },
        },
        {
          apiVersion: 'rbac.authorization.k8s.io/v1',
          kind: 'ClusterRoleBinding',
          metadata: { name: `${ext}-installer` },
          roleRef: {
            apiGroup: 'rbac.authorization.k8s.io',
            kind: 'ClusterRole',
            name: 'cluster-admin',
          },
          subjects: [{ kind: 'ServiceAccount', name: 'installer', namespace: installNs }],
        },
      ]
        .map((o) => JSON.stringify(o))
        .join('\n'),
    );
  });

  after(async function () {
    if (!process.env.NODE_REGISTRY) return;
    this.timeout(5 * 60 * 1000);
    // operator-controller removes its finalizers; its objects go with the ClusterExtension.
    await kubectl(['delete', 'clusterextension', ext, '--ignore-not-found', '--timeout=120s']);
    await uninstallOperatorController();
    // Gone with the ClusterExtension already (its objects are owned by it); a failed run may
    // leave it behind.
    await kubectl(['delete', 'crd', WIDGET_CRD, '--ignore-not-found', '--wait=false']);
    await kubectl(['delete', 'clusterrolebinding', `${ext}-installer`, '--ignore-not-found']);
    await kubectl(['delete', 'namespace', installNs, '--ignore-not-found', '--wait=false']);
    await kubectl(['delete', 'clustercatalog', catalog, '--ignore-not-found', '--wait=false']);
    await undeployCatalogdTs();
    client?.close();
    for (const d of dirs) await rm(d, { recursive: true, force: true });
  });

  it('runs operator-controller from its image under the restricted profile, and 2 catalogd-ts replicas', async () => {
    const ready = (await controllerPods()).filter(isReady);
    expect(ready).to.have.length(2);
    const images = await kubectlOk([
      '-n',
      OLM_NS,
      'get',
      'pods',
      '-l',
      `control-plane=${OPERATOR_CONTROLLER}`,
      '-o',
      'jsonpath={.items[*].spec.containers[0].image}',
    ]);
    expect(images.split(' ')).to.include(operatorControllerImage);
    expect(await enforcedProfile(OLM_NS)).to.equal('restricted');
    // Upstream's CRD of ClusterExtensions only: the ClusterCatalog CRD is still catalogd-ts's.
    const catalogCrd = await kubectlOk([
      'get',
      'crd',
      'clustercatalogs.olm.operatorframework.io',
      '-o',
      'jsonpath={.spec.versions[0].schema.openAPIV3Schema.properties.status.properties.contentHash.type}',
    ]);
    expect(catalogCrd).to.equal('string');
  });

  it('refuses catalogd-ts content over HTTPS until it trusts its CA (x509), then installs 0.1.0', async () => {
    const v1 = await publish([{ name: 'stable', entries: [entry('0.1.0')] }], [bundle('0.1.0')]);
    expect(v1.status?.urls?.base).to.match(/^https:\/\/catalogd-ts\.catalogd-system\.svc:443\//);
    await kubectlOk(
      ['apply', '-f', '-'],
      JSON.stringify({
        apiVersion: 'olm.operatorframework.io/v1',
        kind: 'ClusterExtension',
        metadata: { name: ext },
        spec: {
          namespace: installNs,
          serviceAccount: { name: 'installer' },
          source: {
            sourceType: 'Catalog',
            catalog: {
              packageName: PKG,
              channels: ['stable'],
              selector: { matchLabels: { 'olm.operatorframework.io/metadata.name': catalog } },
            },
          },
        },
      }),
    );
    const refused = await pollUntil(
      async () => {
        const p = cond(await getExt(), 'Progressing');
        return p?.message.includes('x509') ? p : undefined;
      },
      { timeoutMs: 120_000, intervalMs: 500, what: `${ext} to report the untrusted certificate` },
    );
    expect(refused.message).to.contain('certificate signed by unknown authority');
    expect((await getExt()).status?.install).to.equal(undefined);

    // docs/olmv1.md "HTTPS": catalogd-ts's CA added to --catalogd-cas-dir.
    await installOperatorController({ image: operatorControllerImage, catalogdCa: ca });
    const e = await installedVersion('0.1.0', 240_000);
    expect(e.status?.install?.bundle.name).to.equal(`${PKG}.v0.1.0`);
    // Its objects in the apiserver: the CRD, and the CSV's Deployment, whose pod runs on the node.
    expect(await crdContent()).to.equal('0.1.0');
    await kubectlOk([
      '-n',
      installNs,
      'rollout',
      'status',
      `deployment/${PKG}-controller`,
      '--timeout=120s',
    ]);
    await kubectlOk(['-n', installNs, 'get', 'serviceaccount', `${PKG}-controller`]);
  });

  it('upgrades to 0.2.0 when catalog v2 makes it the stable head, and stays in its channel', async () => {
    await publish(v2Channels, v2Bundles());
    await installedVersion('0.2.0');
    expect(await crdContent()).to.equal('0.2.0');
    // A reconcile of a new generation: 0.3.0 succeeds 0.2.0 only in candidate, so it stays.
    const gen = await patchSource({ version: '>=0.1.0' });
    const e = await reconciled(gen, 'Succeeded', `${ext} generation ${gen}`);
    expect(e.status?.install?.bundle.version).to.equal('0.2.0');
  });

  it('honours a version pin, then the channel it names', async () => {
    const pinned = await patchSource({ channels: ['candidate'], version: '0.2.0' });
    const e = await reconciled(pinned, 'Succeeded', `${ext} pinned to 0.2.0`);
    expect(e.status?.install?.bundle.version).to.equal('0.2.0');
    await patchSource({ version: null });
    await installedVersion('0.3.0');
    expect(await crdContent()).to.equal('0.3.0');
  });

  it("shows the catalog's deprecations in the ClusterExtension's deprecation conditions", async () => {
    await publish(v2Channels, v2Bundles(), [
      { schema: 'olm.package', message: 'package deprecated' },
      { schema: 'olm.channel', name: 'candidate', message: 'channel candidate deprecated' },
      { schema: 'olm.bundle', name: `${PKG}.v0.3.0`, message: 'bundle 0.3.0 deprecated' },
    ]);
    const e = await pollUntil(
      async () => {
        const x = await getExt();
        return cond(x, 'Deprecated')?.status === 'True' ? x : undefined;
      },
      { timeoutMs: 120_000, intervalMs: 500, what: `${ext} to be Deprecated` },
    );
    expect(cond(e, 'Deprecated')?.message).to.equal(
      'package deprecated;channel candidate deprecated;bundle 0.3.0 deprecated',
    );
    for (const [type, message] of [
      ['PackageDeprecated', 'package deprecated'],
      ['ChannelDeprecated', 'channel candidate deprecated'],
      ['BundleDeprecated', 'bundle 0.3.0 deprecated'],
    ] as const) {
      expect(cond(e, type)?.status, type).to.equal('True');
      expect(cond(e, type)?.message.trim(), type).to.equal(message);
    }
  });

  it('leaves an Unavailable catalog out of resolution', async () => {
    await setAvailability('Unavailable');
    await pollUntil(
      async () =>
        condition(await getCatalog(catalog), 'Serving')?.reason === 'UserSpecifiedUnavailable',
      { timeoutMs: 60_000, what: `${catalog} to be unavailable` },
    );
    const gen = await patchSource({ version: '>=0.3.0' });
    const e = await reconciled(gen, 'Retrying', `${ext} generation ${gen} without its catalog`);
    expect(cond(e, 'Progressing')?.message).to.equal(
      `error upgrading from currently installed version "0.3.0": no bundles found for package "${PKG}" matching version ">=0.3.0" in channels [candidate]`,
    );
    // What is installed stays.
    expect(e.status?.install?.bundle.version).to.equal('0.3.0');
    expect(cond(e, 'Installed')?.status).to.equal('True');
    expect(await crdContent()).to.equal('0.3.0');

    await setAvailability('Available');
    await waitSynced(catalog);
    const back = await patchSource({ version: null });
    const resolved = await reconciled(back, 'Succeeded', `${ext} with its catalog back`);
    expect(resolved.status?.install?.bundle.version).to.equal('0.3.0');
  });

  it(`installs the new head after each of ${UPDATES} catalog updates: 0 stale`, async () => {
    // Each update adds 1.0.i (replacing the previous head) to candidate; its bundle image is one
    // of the three, in turn, so each upgrade changes the CRD's content annotation (observable in
    // the apiserver) and costs no new image.
    await setAvailability('Available'); // whatever an earlier case left
    const contents = ['0.1.0', '0.2.0', '0.3.0'];
    const bundles = v2Bundles();
    const candidate = structuredClone(v2Channels[1]!);
    let previous = '0.3.0';
    const stale: string[] = [];
    const took: number[] = [];
    // operator-controller fetches each new urls.base at once: no replica may answer it with an
    // error it logs (catalogd-ts holds such a request until it has built the revision).
    const since = new Date(Date.now() - 1000).toISOString();
    for (let i = 1; i <= UPDATES; i++) {
      const version = `1.0.${i}`;
      const content = contents[i % 3]!;
      bundles.push(bundle(version, content));
      candidate.entries.push(entry(version, previous));
      previous = version;
      const t0 = Date.now();
      await publish([v2Channels[0]!, candidate], bundles);
      try {
        await pollUntil(
          async () => {
            const e = await getExt();
            return (
              e.status?.install?.bundle.version === version && (await crdContent()) === content
            );
          },
          { timeoutMs: UPDATE_DEADLINE_MS, intervalMs: 200, what: `${version} installed` },
        );
        took.push(Date.now() - t0);
      } catch {
        const e = await getExt();
        stale.push(
          `update ${i}: ${version} not installed in ${UPDATE_DEADLINE_MS} ms; installed ${e.status?.install?.bundle.version}, Progressing: ${cond(e, 'Progressing')?.message}`,
        );
      }
    }
    took.sort((a, b) => a - b);
    console.log(
      `      ${UPDATES} updates: catalog push to installed median ${took[Math.floor(took.length / 2)]} ms, max ${took.at(-1)} ms`,
    );
    expect(stale, stale.join('\n')).to.deep.equal([]);
    const logs = await kubectlOk([
      '-n',
      OLM_NS,
      'logs',
      `deployment/${OPERATOR_CONTROLLER}`,
      `--since-time=${since}`,
    ]);
    const cacheErrors = logs.split('\n').filter((l) => l.includes('error populating cache'));
    expect(cacheErrors, 'operator-controller log lines over the updates').to.deep.equal([]);
    // No deprecation in these catalogs: the conditions say so again.
    expect(cond(await getExt(), 'Deprecated')?.status).to.equal('False');
  });
});

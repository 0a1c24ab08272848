// The deploy manifests (config/) and the Containerfile, checked as far as this machine allows:
// - config/default renders, and `kubectl apply --dry-run=server -k config/default` is accepted
//   by the real local apiserver (admission included: Pod Security "restricted" is enforced on
//   catalogd-system and the controller's pod passes it; a pod without the hardening does not);
// - the RBAC, applied for real, grants the controller's ServiceAccount what it needs and not
//   more (`kubectl auth can-i --as=system:serviceaccount:catalogd-system:catalogd-ts`);
// - the wiring inside the manifests agrees (ports, probes, flags, Service URL, env);
// - the Containerfile's stages are checked statically and replayed without an engine (a quick
//   check without a node; in-cluster.test.ts builds and runs the image for real): the files its
//   COPY lines name are copied into a scratch directory, `npm ci`, `npm run build` and
//   `npm prune --omit=dev` run there, and the runtime layout (package.json, node_modules,
//   dist/src only) runs the ENTRYPOINT.
import { expect } from 'chai';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadAll } from 'js-yaml';
import type { ClusterCatalog } from '../../src/api/v1/index.js';
import { pushCatalog } from '../../src/source/index.js';
import { applyCatalog, objectsSynced } from '../support/catalogs.js';
import { repoRoot } from '../support/cluster.js';
import { startController } from '../support/controller.js';
import { kubectl, kubectlOk } from '../support/kubectl.js';
import { uniqueName } from '../support/names.js';
import { pollUntil } from '../support/poll.js';
import { runProcess, tsxEntry } from '../support/process.js';

const NS = 'catalogd-system';
const SA = 'catalogd-ts';
const configDir = (name: string) => path.join(repoRoot, 'config', name);

/**
 * Writes the kustomization.yaml of an overlay in `dir` over config/default: the `components` of
 * config/ it names, then `lines` as they are.
 */
function writeOverlay(dir: string, more: { components?: string[]; lines?: string[] }): void {
  const components = more.components ?? [];
  writeFileSync(
    path.join(dir, 'kustomization.yaml'),
    [
      'apiVersion: kustomize.config.k8s.io/v1beta1',
      'kind: Kustomization',
      'resources:',
      `  - ${path.relative(dir, configDir('default'))}`,
      ...(components.length ? ['components:'] : []),
      ...components.map((c) => `  - ${path.relative(dir, configDir(c))}`),
      ...(more.lines ?? []),
      '',
    ].join('\n'),
  );
}

// Loose shapes of the rendered objects: only the fields the tests read.
interface KObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string> };
  [k: string]: unknown;
}
interface Probe {
  httpGet: { path: string; port: string | number };
}
interface Container {
  name: string;
  image: string;
  args?: string[];
  env?: Array<{ name: string; value?: string; valueFrom?: { fieldRef?: { fieldPath: string } } }>;
  ports?: Array<{ name: string; containerPort: number }>;
  livenessProbe?: Probe;
  readinessProbe?: Probe;
  startupProbe?: Probe;
  resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
  securityContext?: Record<string, unknown> & { capabilities?: { drop?: string[] } };
  volumeMounts?: Array<{ name: string; mountPath: string }>;
}
interface PodSpec {
  serviceAccountName?: string;
  securityContext?: Record<string, unknown>;
  containers: Container[];
  volumes?: Array<{ name: string; emptyDir?: Record<string, unknown> }>;
}
interface Deployment extends KObject {
  spec: {
    replicas: number;
    selector: { matchLabels: Record<string, string> };
    template: { metadata: { labels: Record<string, string> }; spec: PodSpec };
  };
}
interface Service extends KObject {
  spec: {
    selector: Record<string, string>;
    ports: Array<{ name: string; port: number; targetPort: string | number }>;
  };
}

async function render(dir: string): Promise<KObject[]> {
  const out = await kubectlOk(['kustomize', dir]);
  return (loadAll(out) as KObject[]).filter(Boolean);
}

interface FlowSchemaSpec {
  priorityLevelConfiguration: { name: string };
  matchingPrecedence: number;
  rules: Array<{ subjects: unknown[]; resourceRules?: Array<{ resources: string[] }> }>;
}

interface PriorityLevelSpec {
  type: string;
  limited?: {
    lendablePercent?: number;
    borrowingLimitPercent?: number;
    limitResponse: { type: string };
  };
}

function find<T extends KObject>(objs: KObject[], kind: string, name: string): T {
  const o = objs.find((x) => x.kind === kind && x.metadata.name === name);
  if (!o) throw new Error(`no ${kind} ${name} in the rendered manifests`);
  return o as T;
}

/** "--name=value" args of a container as a map. */
function flags(args: string[]): Map<string, string> {
  const m = new Map<string, string>();
  for (const a of args) {
    const match = /^(--[a-z0-9-]+)=(.*)$/.exec(a);
    if (match) m.set(match[1]!, match[2]!);
  }
  return m;
}

/**
 * `catalogd controller --help`, run from the sources; KUBECONFIG points nowhere so that it cannot
 * reach a cluster if it ignored --help.
 */
const controllerHelp = () =>
  runProcess(process.execPath, [...tsxEntry('cmd/catalogd.ts'), 'controller', '--help'], {
    cwd: repoRoot,
    env: { ...process.env, KUBECONFIG: '/nonexistent/kubeconfig' },
    timeoutMs: 30_000,
  });

const portOf = (addr: string) => Number(/:(\d+)$/.exec(addr)?.[1]);

/** Phase of a namespace, or undefined when it does not exist. */
async function namespacePhase(name: string): Promise<string | undefined> {
  const r = await kubectl(['get', 'namespace', name, '-o', 'jsonpath={.status.phase}']);
  if (r.code !== 0) {
    if (/NotFound/.test(r.stderr)) return undefined;
    throw new Error(`kubectl get namespace ${name}: ${r.stderr}`);
  }
  return r.stdout;
}

describe('deploy: config/ against the local apiserver', function () {
  this.timeout(120_000);
  let namespaceCreatedHere = false;

  before(async function () {
    // A namespace left Terminating by an earlier run cannot take new objects: wait it out.
    if ((await namespacePhase(NS)) === 'Terminating') {
      await kubectlOk(['wait', '--for=delete', `namespace/${NS}`, '--timeout=90s']);
    }
    namespaceCreatedHere = (await namespacePhase(NS)) === undefined;
    // Server dry-run of a namespaced object fails when its namespace does not exist yet (a
    // dry-run namespace is not stored), so the namespace base is applied for real first.
    await kubectlOk(['apply', '-k', configDir('namespace')]);
  });

  after(async function () {
    // Cluster-scoped names are fixed (catalogd-ts-manager): delete them so reruns start clean.
    await kubectl(['delete', '-k', configDir('rbac'), '--ignore-not-found', '--wait=false']);
    if (namespaceCreatedHere) {
      await kubectl(['delete', 'namespace', NS, '--ignore-not-found', '--wait=false']);
    }
  });

  describe('config/tls and config/cert-manager: an HTTPS overlay (docs/deploy.md, "HTTPS")', function () {
    let overlay: string;
    let objs: KObject[];
    let deploy: Deployment;
    let svc: Service;
    let manager: Container;

    before(async function () {
      overlay = mkdtempSync(path.join(os.tmpdir(), 'catalogd-https-overlay-'));
      writeOverlay(overlay, { components: ['tls', 'cert-manager'] });
      objs = await render(overlay);
      deploy = find<Deployment>(objs, 'Deployment', 'catalogd-ts');
      svc = find<Service>(objs, 'Service', 'catalogd-ts');
      manager = deploy.spec.template.spec.containers[0]!;
    });

    after(() => rmSync(overlay, { recursive: true, force: true }));

    it('mounts the serving Secret as a directory, passes its files, and --server-url is the https Service port', function () {
      const f = flags(manager.args ?? []);
      const mount = manager.volumeMounts?.find((m) => m.mountPath === '/etc/catalogd/tls');
      expect(mount, 'the certificate directory mount').to.not.equal(undefined);
      const volume = (
        deploy.spec.template.spec.volumes as Array<{
          name: string;
          secret?: { secretName: string };
        }>
      ).find((v) => v.name === mount?.name);
      expect(volume?.secret?.secretName).to.equal('catalogd-ts-serving-cert');
      expect(f.get('--tls-cert-file')).to.equal('/etc/catalogd/tls/tls.crt');
      expect(f.get('--tls-key-file')).to.equal('/etc/catalogd/tls/tls.key');
      const url = new URL(f.get('--server-url') ?? '');
      expect(url.protocol).to.equal('https:');
      const port = svc.spec.ports.find((p) => p.port === Number(url.port || 443));
      expect(port?.name).to.equal('https');
      const ports = new Map(manager.ports?.map((p) => [p.name, p.containerPort]));
      expect(ports.get(String(port?.targetPort))).to.equal(portOf(f.get('--server-addr') ?? ''));

      // cert-manager: the serving certificate names the host of --server-url, into that Secret.
      const cert = find<KObject & { spec: { secretName: string; dnsNames: string[] } }>(
        objs,
        'Certificate',
        'catalogd-ts-serving-cert',
      );
      expect(cert.spec.secretName).to.equal('catalogd-ts-serving-cert');
      expect(cert.spec.dnsNames).to.include(url.hostname);
      expect(find(objs, 'Certificate', 'catalogd-ts-ca')).to.not.equal(undefined);
      expect(find(objs, 'Issuer', 'catalogd-ts-ca')).to.not.equal(undefined);
    });

    it('serves metrics over HTTPS behind authn/authz on the Service port https-metrics, readable with metrics-reader', function () {
      expect(manager.args).to.include('--metrics-secure');
      const f = flags(manager.args ?? []);
      const ports = new Map(manager.ports?.map((p) => [p.name, p.containerPort]));
      const metrics = svc.spec.ports.find((p) => p.name === 'https-metrics');
      expect(metrics?.targetPort).to.equal('https-metrics');
      expect(ports.get('https-metrics')).to.equal(portOf(f.get('--metrics-addr') ?? ''));
      expect(svc.spec.ports.map((p) => p.name).sort()).to.deep.equal(['https', 'https-metrics']);
      const reader = find<KObject & { rules: unknown[] }>(
        objs,
        'ClusterRole',
        'catalogd-ts-metrics-reader',
      );
      expect(reader.rules).to.deep.equal([{ nonResourceURLs: ['/metrics'], verbs: ['get'] }]);
      const managerRole = find<
        KObject & { rules: Array<{ apiGroups: string[]; resources: string[]; verbs: string[] }> }
      >(objs, 'ClusterRole', 'catalogd-ts-manager');
      for (const [group, resource] of [
        ['authentication.k8s.io', 'tokenreviews'],
        ['authorization.k8s.io', 'subjectaccessreviews'],
      ] as const) {
        const rule = managerRole.rules.find(
          (r) => r.apiGroups.includes(group) && r.resources.includes(resource),
        );
        expect(rule?.verbs, `${resource}`).to.deep.equal(['create']);
      }
    });

    it('every flag it adds is documented and listed by `catalogd controller --help`', async function () {
      this.timeout(60_000);
      const doc = readFileSync(path.join(repoRoot, 'docs', 'deploy.md'), 'utf8');
      const r = await controllerHelp();
      for (const name of flags(manager.args ?? []).keys()) {
        expect(doc, `docs/deploy.md documents ${name}`).to.include(`\`${name}`);
        expect(r.stdout, `controller --help lists ${name}`).to.include(name);
      }
    });

    it('its Deployment and Service pass a server dry-run (cert-manager kinds are not served here)', async function () {
      const mine = objs.filter((o) => o.kind === 'Deployment' || o.kind === 'Service');
      const r = await kubectl(
        ['apply', '--dry-run=server', '-f', '-'],
        JSON.stringify({ apiVersion: 'v1', kind: 'List', items: mine }),
      );
      expect(r.code, r.stderr).to.equal(0);
      expect(r.stderr).to.not.match(/PodSecurity/);
    });
  });

  describe('config/default', function () {
    let objs: KObject[];
    let deploy: Deployment;
    let svc: Service;
    let manager: Container;

    before(async function () {
      objs = await render(configDir('default'));
      deploy = find<Deployment>(objs, 'Deployment', 'catalogd-ts');
      svc = find<Service>(objs, 'Service', 'catalogd-ts');
      manager = deploy.spec.template.spec.containers[0]!;
    });

    it('renders namespace, CRDs, RBAC, Deployment, Service and admission policy, all labelled', function () {
      const ids = objs.map((o) => `${o.kind}/${o.metadata.namespace ?? ''}/${o.metadata.name}`);
      expect(ids.sort()).to.deep.equal(
        [
          `Namespace//${NS}`,
          'CustomResourceDefinition//clustercatalogs.olm.operatorframework.io',
          'CustomResourceDefinition//catalogmetadata.olm.operatorframework.io',
          `ServiceAccount/${NS}/${SA}`,
          'ClusterRole//catalogd-ts-manager',
          'ClusterRoleBinding//catalogd-ts-manager',
          'ClusterRole//catalogd-ts-metrics-reader',
          `Role/${NS}/catalogd-ts`,
          `RoleBinding/${NS}/catalogd-ts`,
          `Deployment/${NS}/catalogd-ts`,
          `Service/${NS}/catalogd-ts`,
          'MutatingAdmissionPolicy//catalogd-ts-metadata-name-label',
          'MutatingAdmissionPolicyBinding//catalogd-ts-metadata-name-label',
          'PriorityLevelConfiguration//catalogd-ts-catalogmetadata',
          'FlowSchema//catalogd-ts-catalogmetadata',
        ].sort(),
      );
      for (const o of objs) {
        expect(
          o.metadata.labels?.['app.kubernetes.io/name'],
          `${o.kind}/${o.metadata.name}`,
        ).to.equal('catalogd-ts');
      }
      expect(deploy.spec.template.metadata.labels['app.kubernetes.io/name']).to.equal(
        'catalogd-ts',
      );
      const ns = find(objs, 'Namespace', NS);
      expect(ns.metadata.labels?.['pod-security.kubernetes.io/enforce']).to.equal('restricted');
    });

    it("FlowSchema: the Deployment's ServiceAccount's CatalogMetadata requests, to a capped level", function () {
      // API Priority and Fairness (docs/deploy.md, "Control-plane cost"): the level neither lends
      // nor borrows seats, so a cold sync cannot take the apiserver's idle seats either.
      const fs = find<KObject & { spec: FlowSchemaSpec }>(
        objs,
        'FlowSchema',
        'catalogd-ts-catalogmetadata',
      );
      const pl = find<KObject & { spec: PriorityLevelSpec }>(
        objs,
        'PriorityLevelConfiguration',
        fs.spec.priorityLevelConfiguration.name,
      );
      expect(fs.spec.rules).to.have.length(1);
      expect(fs.spec.rules[0]!.subjects).to.deep.equal([
        {
          kind: 'ServiceAccount',
          serviceAccount: { name: deploy.spec.template.spec.serviceAccountName, namespace: NS },
        },
      ]);
      expect(fs.spec.rules[0]!.resourceRules?.[0]?.resources).to.deep.equal(['catalogmetadata']);
      // Before the built-in service-accounts schema (9000), which would match first otherwise.
      expect(fs.spec.matchingPrecedence).to.be.lessThan(9000);
      expect(pl.spec.type).to.equal('Limited');
      expect(pl.spec.limited?.lendablePercent).to.equal(0);
      expect(pl.spec.limited?.borrowingLimitPercent).to.equal(0);
      expect(pl.spec.limited?.limitResponse.type).to.equal('Queue');
    });

    it('Deployment: one replica, restricted security context, read-only root with emptyDirs', function () {
      const pod = deploy.spec.template.spec;
      expect(deploy.spec.replicas).to.equal(1);
      expect(pod.serviceAccountName).to.equal(SA);
      expect(pod.containers).to.have.length(1);
      expect(manager.image).to.equal('catalogd-ts:latest');
      expect(pod.securityContext).to.include({ runAsNonRoot: true });
      expect(pod.securityContext?.seccompProfile).to.deep.equal({ type: 'RuntimeDefault' });
      expect(manager.securityContext).to.include({
        allowPrivilegeEscalation: false,
        readOnlyRootFilesystem: true,
      });
      expect(manager.securityContext?.capabilities?.drop).to.deep.equal(['ALL']);
      // The selector picks exactly the pod template, and the Service picks the same pods.
      expect(deploy.spec.template.metadata.labels).to.include(deploy.spec.selector.matchLabels);
      expect(deploy.spec.template.metadata.labels).to.include(svc.spec.selector);
      const mounts = new Map(manager.volumeMounts?.map((m) => [m.mountPath, m.name]));
      const emptyDirs = new Set(pod.volumes?.filter((v) => v.emptyDir).map((v) => v.name));
      for (const p of ['/var/cache/catalogd', '/tmp']) {
        expect(emptyDirs.has(mounts.get(p) ?? ''), `emptyDir at ${p}`).to.equal(true);
      }
      expect(manager.resources?.limits?.memory).to.equal('384Mi');
      expect(manager.resources?.requests?.memory).to.be.a('string');
      expect(manager.resources?.requests?.cpu).to.be.a('string');
    });

    it('Deployment: flags, ports, probes, env and the Service agree with each other', function () {
      expect(manager.args?.[0]).to.equal('controller');
      const f = flags(manager.args ?? []);
      const ports = new Map(manager.ports?.map((p) => [p.name, p.containerPort]));
      expect(ports.get('http')).to.equal(portOf(f.get('--server-addr') ?? ''));
      expect(ports.get('metrics')).to.equal(portOf(f.get('--metrics-addr') ?? ''));
      expect(ports.get('health')).to.equal(portOf(f.get('--health-addr') ?? ''));
      expect(f.get('--cache-dir')).to.equal('/var/cache/catalogd');
      for (const [probe, p] of [
        ['liveness', manager.livenessProbe],
        ['readiness', manager.readinessProbe],
        ['startup', manager.startupProbe],
      ] as const) {
        expect(p?.httpGet.port, probe).to.equal('health');
      }
      expect(manager.livenessProbe?.httpGet.path).to.equal('/healthz');
      expect(manager.readinessProbe?.httpGet.path).to.equal('/readyz');

      // status.urls.base is built from --server-url: it must reach this Service's content port.
      const url = new URL(f.get('--server-url') ?? '');
      expect(url.protocol).to.equal('http:');
      expect(url.hostname).to.equal(`${svc.metadata.name}.${svc.metadata.namespace}.svc`);
      const httpPort = svc.spec.ports.find((p) => p.port === Number(url.port || 80));
      expect(httpPort, 'Service port of --server-url').to.not.equal(undefined);
      expect(httpPort?.targetPort).to.equal('http');
      expect(svc.spec.ports.find((p) => p.name === 'metrics')?.targetPort).to.equal('metrics');

      const env = new Map(manager.env?.map((e) => [e.name, e.valueFrom?.fieldRef?.fieldPath]));
      expect(env.get('POD_NAMESPACE')).to.equal('metadata.namespace');
      expect(env.get('POD_SERVICE_ACCOUNT')).to.equal('spec.serviceAccountName');
    });

    it('every flag the Deployment passes is documented in docs/deploy.md', function () {
      const doc = readFileSync(path.join(repoRoot, 'docs', 'deploy.md'), 'utf8');
      for (const name of flags(manager.args ?? []).keys()) {
        expect(doc, `docs/deploy.md documents ${name}`).to.include(`\`${name}`);
      }
    });

    it('every flag the Deployment passes is one `catalogd controller --help` lists', async function () {
      // Skipped only while the subcommand does not exist yet.
      this.timeout(60_000);
      const r = await controllerHelp();
      const help = r.stdout + r.stderr;
      if (/unknown command "controller"/.test(help)) this.skip();
      expect(help, 'controller --help output').to.include('--server-addr');
      for (const name of flags(manager.args ?? []).keys()) {
        expect(help, `controller --help lists ${name}`).to.include(name);
      }
    });

    it('kubectl apply --dry-run=server -k config/default is accepted, without warnings', async function () {
      for (const extra of [[], ['--server-side', '--force-conflicts']]) {
        const r = await kubectl([
          'apply',
          '--dry-run=server',
          ...extra,
          '-k',
          configDir('default'),
        ]);
        expect(r.code, `kubectl apply ${extra.join(' ')}: ${r.stderr}`).to.equal(0);
        expect(r.stdout).to.match(/deployment\.apps\/catalogd-ts .*\(server dry run\)/);
        expect(r.stdout).to.match(/service\/catalogd-ts .*\(server dry run\)/);
        // PodSecurity "warn" is evaluated on the Deployment's pod template.
        expect(r.stderr).to.not.match(/PodSecurity/);
      }
    });

    it('the pod passes Pod Security "restricted" enforcement; an unhardened one does not', async function () {
      const pod = (hardened: boolean): string => {
        const spec = structuredClone(deploy.spec.template.spec);
        // The ServiceAccount admission plugin (on in real clusters and with the local node)
        // refuses a pod whose ServiceAccount does not exist yet; this checks Pod Security only.
        delete spec.serviceAccountName;
        if (!hardened) {
          delete spec.securityContext;
          for (const c of spec.containers) delete c.securityContext;
        }
        return JSON.stringify({
          apiVersion: 'v1',
          kind: 'Pod',
          metadata: { name: 'catalogd-ts-psa-check', namespace: NS },
          spec,
        });
      };
      const ok = await kubectl(['create', '--dry-run=server', '-f', '-'], pod(true));
      expect(ok.code, ok.stderr).to.equal(0);
      // The control: proves that enforcement is on, so the pass above means something.
      const bad = await kubectl(['create', '--dry-run=server', '-f', '-'], pod(false));
      expect(bad.code).to.not.equal(0);
      expect(bad.stderr).to.match(/violates PodSecurity "restricted/);
    });

    it('the image is set with kustomize images in an overlay', async function () {
      const overlay = mkdtempSync(path.join(os.tmpdir(), 'catalogd-overlay-'));
      try {
        writeOverlay(overlay, {
          lines: [
            'images:',
            '  - name: catalogd-ts',
            '    newName: registry.example.com/catalogd-ts',
            '    newTag: v1.2.3',
          ],
        });
        const d = find<Deployment>(await render(overlay), 'Deployment', 'catalogd-ts');
        expect(d.spec.template.spec.containers[0]?.image).to.equal(
          'registry.example.com/catalogd-ts:v1.2.3',
        );
      } finally {
        rmSync(overlay, { recursive: true, force: true });
      }
    });
  });

  describe('config/rbac, applied for real', function () {
    const as = [
      `--as=system:serviceaccount:${NS}:${SA}`,
      '--as-group=system:serviceaccounts',
      `--as-group=system:serviceaccounts:${NS}`,
      '--as-group=system:authenticated',
    ];

    before(async function () {
      await kubectlOk(['apply', '-k', configDir('rbac')]);
    });

    /** `kubectl auth can-i` as the controller's ServiceAccount: true for "yes". */
    async function canI(args: string[]): Promise<boolean> {
      const r = await kubectl(['auth', 'can-i', ...args, ...as]);
      const answer = r.stdout.trim();
      if (answer !== 'yes' && answer !== 'no') {
        throw new Error(`kubectl auth can-i ${args.join(' ')}: ${r.stdout}${r.stderr}`);
      }
      return answer === 'yes';
    }

    const cc = 'clustercatalogs.olm.operatorframework.io';
    const cm = 'catalogmetadata.olm.operatorframework.io';
    const allowed: string[][] = [
      ['list', cm],
      ['watch', cm],
      ['create', cm],
      ['delete', cm],
      ['deletecollection', cm],
      ['watch', cc],
      ['watch', 'customresourcedefinitions.apiextensions.k8s.io'],
      ['patch', cc],
      ['patch', cc, '--subresource=status'],
      ['update', cc, '--subresource=status'],
      ['update', cc, '--subresource=finalizers'],
      ['create', 'events', '-n', 'default'],
      ['patch', 'events.events.k8s.io', '-n', 'default'],
      ['get', 'leases.coordination.k8s.io/catalogd-ts-leader', '-n', NS],
      ['create', 'leases.coordination.k8s.io', '-n', NS],
      ['update', 'leases.coordination.k8s.io/catalogd-ts-leader', '-n', NS],
      ['get', 'secrets', '-n', NS],
      ['get', `serviceaccounts/${SA}`, '-n', NS],
      // Secure metrics (--metrics-secure): a scrape's token and its user's access, reviewed.
      ['create', 'tokenreviews.authentication.k8s.io'],
      ['create', 'subjectaccessreviews.authorization.k8s.io'],
    ];
    const denied: string[][] = [
      ['get', 'secrets', '-n', 'kube-system'],
      ['get', 'secrets', '-n', 'default'],
      ['list', 'secrets', '-n', NS],
      ['watch', 'secrets', '-n', NS],
      ['get', 'serviceaccounts/default', '-n', NS],
      ['create', 'leases.coordination.k8s.io', '-n', 'kube-system'],
      ['delete', 'leases.coordination.k8s.io/catalogd-ts-leader', '-n', NS],
      ['delete', 'namespaces'],
      ['create', cc],
      ['delete', cc],
      ['delete', 'customresourcedefinitions.apiextensions.k8s.io'],
      ['create', 'pods', '-n', NS],
      ['update', 'roles.rbac.authorization.k8s.io', '-n', NS],
      // It reviews scrapes of its metrics; it does not read metrics itself.
      ['get', '/metrics'],
    ];

    it('is enough for the real controller: it syncs, records events and finalizes as the ServiceAccount', async function () {
      // The can-i checks above test the rules; this tests that they are all the controller
      // needs. `catalogd controller` runs with a token of catalogd-system/catalogd-ts (the
      // identity of the Deployment's pods), its Lease in catalogd-system and the downward-API
      // env of the Deployment, and takes a catalog through sync and deletion.
      this.timeout(240_000);
      const work = mkdtempSync(path.join(os.tmpdir(), 'catalogd-sa-'));
      const lease = uniqueName('deploy-rbac');
      const name = uniqueName('deploy-rbac');
      const saved = { ns: process.env.POD_NAMESPACE, sa: process.env.POD_SERVICE_ACCOUNT };
      let controller: Awaited<ReturnType<typeof startController>> | undefined;
      try {
        const token = (await kubectlOk(['create', 'token', SA, '-n', NS, '--duration=1h'])).trim();
        const admin = JSON.parse(
          await kubectlOk(['config', 'view', '--raw', '--minify', '-o', 'json']),
        ) as { clusters: Array<{ cluster: Record<string, string> }> };
        const kubeconfig = path.join(work, 'kubeconfig');
        writeFileSync(
          kubeconfig,
          JSON.stringify({
            apiVersion: 'v1',
            kind: 'Config',
            clusters: [{ name: 'local', cluster: admin.clusters[0]!.cluster }],
            users: [{ name: SA, user: { token } }],
            contexts: [{ name: 'sa', context: { cluster: 'local', user: SA, namespace: NS } }],
            'current-context': 'sa',
          }),
        );
        const { ref } = await pushCatalog(
          path.join(repoRoot, 'examples', 'catalog'),
          `${process.env.REGISTRY}/e2e/deploy-rbac:${uniqueName('v')}`,
        );

        process.env.POD_NAMESPACE = NS;
        process.env.POD_SERVICE_ACCOUNT = SA;
        controller = await startController({
          leaseId: lease,
          args: [`--kubeconfig=${kubeconfig}`, `--leader-election-namespace=${NS}`],
        });

        await applyCatalog(name, ref);
        const synced = await pollUntil(
          async () => {
            const c = JSON.parse(
              await kubectlOk(['get', 'clustercatalog', name, '-o', 'json']),
            ) as ClusterCatalog;
            return objectsSynced(c) ? c : undefined;
          },
          {
            timeoutMs: 120_000,
            what: `ClusterCatalog ${name} to sync (log: ${controller.logFile})`,
          },
        );
        const objects = await kubectlOk([
          'get',
          'catalogmetadata',
          '-l',
          `catalog=${name}`,
          '-o',
          'name',
        ]);
        expect(objects.trim().split('\n')).to.have.length(synced.status?.objectCount ?? -1);
        expect(synced.status?.objectCount).to.be.greaterThan(0);
        // The Lease was taken in catalogd-system.
        const holder = await kubectlOk([
          'get',
          'lease',
          lease,
          '-n',
          NS,
          '-o',
          'jsonpath={.spec.holderIdentity}',
        ]);
        expect(holder).to.not.equal('');
        // Events about the catalog were written. Other controllers sharing the local cluster
        // (e.g. a developer's concurrent test run) reconcile every ClusterCatalog too; their
        // events name them in reportingInstance.
        const instances = await pollUntil(
          async () => {
            const list = JSON.parse(
              await kubectlOk([
                'get',
                'events',
                '-n',
                'default',
                '--field-selector',
                `involvedObject.name=${name}`,
                '-o',
                'json',
              ]),
            ) as { items: Array<{ reportingInstance?: string }> };
            const seen = new Set(list.items.map((e) => e.reportingInstance ?? ''));
            return seen.size > 0 ? seen : undefined;
          },
          { timeoutMs: 30_000, what: `an Event about ${name}` },
        );
        // A repeated event is counted on the existing object, which keeps its first reporter.
        const alone = instances.size === 1 && instances.has(holder);

        // Deletion goes through the controller's finalizer (and the garbage collector).
        await kubectlOk(['delete', 'clustercatalog', name, '--timeout=60s']);

        // The apiserver never refused this controller anything, and (when no other controller
        // took part) it did all the writes itself.
        const m = 'catalogd_apiserver_requests_total';
        expect(await controller.metric(m, { code: '403' }), 'requests refused with 403').to.equal(
          0,
        );
        const created = await controller.metric(m, {
          verb: 'create',
          resource: 'catalogmetadata',
          code: '201',
        });
        if (alone) {
          expect(created, 'CatalogMetadata created by this controller').to.equal(
            synced.status?.objectCount,
          );
        }
        await controller.stop();
        const log = readFileSync(controller.logFile, 'utf8');
        expect(log, `controller log ${controller.logFile}`).to.not.match(/forbidden/i);
        const reconciled = log
          .split('\n')
          .filter((l) => l.startsWith('{'))
          .map((l) => JSON.parse(l) as { catalog?: string; msg?: string })
          .some((l) => l.catalog === name && l.msg === 'reconciled');
        expect(reconciled, `this controller reconciled ${name}`).to.equal(true);
      } finally {
        if (saved.ns === undefined) delete process.env.POD_NAMESPACE;
        else process.env.POD_NAMESPACE = saved.ns;
        if (saved.sa === undefined) delete process.env.POD_SERVICE_ACCOUNT;
        else process.env.POD_SERVICE_ACCOUNT = saved.sa;
        await controller?.stop();
        await kubectl(['delete', 'clustercatalog', name, '--ignore-not-found', '--wait=false']);
        await kubectl(['delete', 'lease', lease, '-n', NS, '--ignore-not-found']);
        rmSync(work, { recursive: true, force: true });
      }
    });

    for (const args of allowed) {
      it(`can ${args.join(' ')}`, async function () {
        expect(await canI(args)).to.equal(true);
      });
    }
    for (const args of denied) {
      it(`cannot ${args.join(' ')}`, async function () {
        expect(await canI(args)).to.equal(false);
      });
    }
  });
});

describe('deploy: Containerfile', function () {
  const containerfile = readFileSync(path.join(repoRoot, 'Containerfile'), 'utf8');
  const pkg = JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as {
    bin: Record<string, string>;
    scripts: Record<string, string>;
  };
  // Instructions with continuation lines joined and comments dropped.
  const instructions = containerfile
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'))
    .map((l) => {
      const [op = '', ...rest] = l.split(/\s+/);
      return { op: op.toUpperCase(), arg: rest.join(' ') };
    });
  const stages: Array<typeof instructions> = [];
  for (const ins of instructions) {
    if (ins.op === 'FROM') stages.push([]);
    stages.at(-1)?.push(ins);
  }
  const builder = stages[0] ?? [];
  const runtime = stages.at(-1) ?? [];
  const last = (stage: typeof instructions, op: string) =>
    stage.filter((i) => i.op === op).at(-1)?.arg;

  it('is multi-stage on Node 24, builder then runtime', function () {
    expect(stages.length).to.equal(2);
    for (const s of stages) expect(s[0]?.arg).to.match(/^node:24[-.\w]*( AS \w+)?$/i);
    expect(builder[0]?.arg).to.match(/ AS builder$/i);
    const runs = builder.filter((i) => i.op === 'RUN').map((i) => i.arg);
    expect(runs.join(' && ')).to.match(/npm ci\b.*npm run build\b.*npm prune --omit=dev/);
    expect(pkg.scripts.build, 'package.json has the build script the builder runs').to.be.a(
      'string',
    );
    // The runtime stage takes only the build output and production dependencies.
    const copies = runtime.filter((i) => i.op === 'COPY').map((i) => i.arg);
    expect(copies.every((c) => c.startsWith('--from=builder '))).to.equal(true);
    expect(runtime.some((i) => i.op === 'RUN')).to.equal(false);
  });

  it('runs as a numeric non-root user, the one the Deployment runs as', async function () {
    const user = last(runtime, 'USER') ?? '';
    expect(user).to.match(/^\d+(:\d+)?$/);
    const uid = Number(user.split(':')[0]);
    expect(uid).to.be.greaterThan(0);
    const d = find<Deployment>(await render(configDir('manager')), 'Deployment', 'catalogd-ts');
    expect(d.spec.template.spec.securityContext?.runAsUser).to.equal(uid);
  });

  it('ENTRYPOINT runs the entry point the package bin launches and CMD is the controller', function () {
    const entrypoint = JSON.parse(last(runtime, 'ENTRYPOINT') ?? 'null') as string[];
    const cmd = JSON.parse(last(runtime, 'CMD') ?? 'null') as string[];
    // The bin is a launcher that checks the Node version (the image's Node is pinned, so the
    // image runs the compiled entry point it launches directly).
    const launcher = path.join(repoRoot, pkg.bin.catalogd ?? '');
    const launched = /launch\('catalogd', '([^']+)'\)/.exec(readFileSync(launcher, 'utf8'))?.[1];
    expect(launched, `the entry point ${pkg.bin.catalogd} launches`).to.be.a('string');
    const entry = path.relative(repoRoot, path.resolve(path.dirname(launcher), launched ?? ''));
    expect(entrypoint).to.deep.equal(['node', entry]);
    expect(cmd).to.deep.equal(['controller']);
    // The entry point is the compiled form of a source file that exists.
    const src = entry.replace(/^dist\//, '').replace(/\.js$/, '.ts');
    expect(existsSync(path.join(repoRoot, src)), src).to.equal(true);
  });

  it('every file the builder copies from the context exists and is not .dockerignored', function () {
    const ignore = readFileSync(path.join(repoRoot, '.dockerignore'), 'utf8');
    const reincluded = new Set(
      ignore
        .split('\n')
        .map((l) => l.trim())
        .filter((l) => l.startsWith('!'))
        .map((l) => l.slice(1).replace(/\/$/, '')),
    );
    expect(ignore.split('\n').map((l) => l.trim())).to.include('*');
    for (const ins of builder.filter((i) => i.op === 'COPY' && !i.arg.startsWith('--from'))) {
      const sources = ins.arg.split(/\s+/).slice(0, -1);
      for (const s of sources) {
        expect(existsSync(path.join(repoRoot, s)), `${s} exists`).to.equal(true);
        expect(reincluded.has(s.replace(/\/$/, '')), `${s} re-included in .dockerignore`).to.equal(
          true,
        );
      }
    }
  });

  it('replayed without an engine: the builder stage builds and the runtime layout runs', async function () {
    // No container engine here: run the builder's steps in a scratch copy of exactly the files
    // its COPY lines name, then run the ENTRYPOINT from a directory holding only what the
    // runtime stage copies. Catches a build that needs files the image lacks, and a runtime
    // import of a devDependency. Base-image specifics (libc, user database) are not covered.
    this.timeout(300_000);
    const work = mkdtempSync(path.join(os.tmpdir(), 'catalogd-image-'));
    try {
      const ctx = path.join(work, 'src-stage');
      for (const ins of builder.filter((i) => i.op === 'COPY' && !i.arg.startsWith('--from'))) {
        for (const s of ins.arg.split(/\s+/).slice(0, -1)) {
          cpSync(path.join(repoRoot, s), path.join(ctx, s), {
            recursive: true,
            filter: (f) => !f.endsWith('.test.ts'),
          });
        }
      }
      const npm = 'npm'; // hack/node.sh's node is first on PATH, so npm runs on Node 24
      const env = { ...process.env, NODE_ENV: undefined };
      const step = async (args: string[]) => {
        const r = await runProcess(npm, args, { cwd: ctx, env });
        return { ...r, out: `npm ${args.join(' ')} (${r.code}):\n${r.stdout}${r.stderr}` };
      };
      // Offline: from the npm cache `make deps` filled (this machine may have no network).
      const ci = await step(['ci', '--offline', '--no-audit', '--no-fund', '--loglevel=error']);
      if (ci.code !== 0 && /ENOTCACHED/.test(ci.out)) this.skip();
      expect(ci.code, ci.out).to.equal(0);
      const build = await step(['run', 'build']);
      expect(build.code, build.out).to.equal(0);
      const prune = await step(['prune', '--omit=dev', '--offline', '--no-audit', '--no-fund']);
      expect(prune.code, prune.out).to.equal(0);

      const app = path.join(work, 'app');
      for (const ins of runtime.filter((i) => i.op === 'COPY')) {
        const [, from, to] = /^--from=builder\s+\/src\/(\S+)\s+(\S+)$/.exec(ins.arg) ?? [];
        expect(from, `runtime COPY ${ins.arg}`).to.be.a('string');
        cpSync(path.join(ctx, from!), path.join(app, to!), { recursive: true });
      }
      const entrypoint = JSON.parse(last(runtime, 'ENTRYPOINT') ?? '[]') as string[];
      expect(entrypoint[0]).to.equal('node');
      const r = await runProcess(process.execPath, [...entrypoint.slice(1), '--help'], {
        cwd: app,
        env: { PATH: process.env.PATH, NODE_ENV: 'production' },
        timeoutMs: 30_000,
      });
      expect(r.code, r.stdout + r.stderr).to.equal(0);
      // The image's CMD names a subcommand the built CLI has.
      const cmd = JSON.parse(last(runtime, 'CMD') ?? '[]') as string[];
      expect(r.stdout).to.match(new RegExp(`^\\s+${cmd[0]}\\s`, 'm'));
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  });
});

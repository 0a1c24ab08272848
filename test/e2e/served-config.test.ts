// config/served (the served mode, docs/deploy.md "Served mode"), rendered with `kubectl
// kustomize` over config/default as an overlay adds it: no CatalogMetadata CRD, the controller's
// flags and port, the APIService wired to the Service and its certificate, and the RBAC of an
// aggregated apiserver. The CRD mode (config/default alone) keeps its CRD and has no APIService.
// kubectl is the local control plane's (test/support/local-kubectl.ts): an e2e test, which
// `make test-e2e` runs once the control plane is built (a unit run has no kubectl to call).
import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadAll } from 'js-yaml';
import { SERVED_GROUP } from '../../src/api/v1/index.js';
import { repoRoot } from '../support/cluster.js';
import { localKubectl } from '../support/local-kubectl.js';
import { SERVED_API_SERVICE as API_SERVICE } from '../support/served-api.js';

const NS = 'catalogd-system';

interface KObject {
  apiVersion: string;
  kind: string;
  metadata: {
    name: string;
    namespace?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
  };
  [k: string]: unknown;
}
interface Subject {
  kind: string;
  name: string;
  namespace?: string;
}
interface Binding extends KObject {
  roleRef: { kind: string; name: string };
  subjects: Subject[];
}
interface Rule {
  apiGroups?: string[];
  resources?: string[];
  verbs: string[];
}
interface Port {
  name: string;
  port?: number;
  containerPort?: number;
  targetPort?: string | number;
}
interface Deployment extends KObject {
  spec: {
    template: {
      spec: {
        containers: Array<{ args: string[]; ports: Port[]; volumeMounts: Array<{ name: string }> }>;
        volumes: Array<{ name: string; secret?: { secretName: string } }>;
      };
    };
  };
}
interface ApiService extends KObject {
  spec: {
    group: string;
    version: string;
    service: { name: string; namespace: string; port: number };
    groupPriorityMinimum: number;
    versionPriority: number;
    insecureSkipTLSVerify?: boolean;
  };
}

/** config/default with these components of config/, rendered. */
function render(components: string[]): KObject[] {
  const dir = mkdtempSync(path.join(tmpdir(), 'served-config-'));
  try {
    const rel = (name: string) => path.relative(dir, path.join(repoRoot, 'config', name));
    writeFileSync(
      path.join(dir, 'kustomization.yaml'),
      [
        'apiVersion: kustomize.config.k8s.io/v1beta1',
        'kind: Kustomization',
        `resources: [${rel('default')}]`,
        ...(components.length ? [`components: [${components.map(rel).join(', ')}]`] : []),
        '',
      ].join('\n'),
    );
    const out = execFileSync(localKubectl(), ['kustomize', dir], { encoding: 'utf8' });
    return (loadAll(out) as KObject[]).filter(Boolean);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function find<T extends KObject>(objs: KObject[], kind: string, name: string, ns?: string): T {
  const o = objs.find(
    (x) =>
      x.kind === kind &&
      x.metadata.name === name &&
      (ns === undefined || x.metadata.namespace === ns),
  );
  if (!o) throw new Error(`no ${kind} ${ns ? `${ns}/` : ''}${name} in the rendered manifests`);
  return o as T;
}

const crdNames = (objs: KObject[]) =>
  objs.filter((o) => o.kind === 'CustomResourceDefinition').map((o) => o.metadata.name);

const controllerSa: Subject = { kind: 'ServiceAccount', name: 'catalogd-ts', namespace: NS };

describe('config/served (the served mode)', function () {
  // Each render runs kubectl once (well under a second); the first call may find the binary.
  this.timeout(60_000);
  let served: KObject[];
  let crdMode: KObject[];
  before(() => {
    served = render(['tls', 'served']);
    crdMode = render([]);
  });

  it('installs the ClusterCatalog CRD and not the CatalogMetadata CRD', () => {
    expect(crdNames(served)).to.deep.equal(['clustercatalogs.olm.operatorframework.io']);
    expect(crdNames(crdMode)).to.have.members([
      'clustercatalogs.olm.operatorframework.io',
      'catalogmetadata.olm.operatorframework.io',
    ]);
  });

  it('runs the controller with the served view on the api port, with the TLS certificate', () => {
    const container = find<Deployment>(served, 'Deployment', 'catalogd-ts', NS).spec.template.spec
      .containers[0]!;
    expect(container.args).to.include.members([
      '--object-view=served',
      '--api-listen=:9443',
      '--tls-cert-file=/etc/catalogd/tls/tls.crt',
      '--tls-key-file=/etc/catalogd/tls/tls.key',
    ]);
    expect(container.ports).to.deep.include({ name: 'api', containerPort: 9443, protocol: 'TCP' });
    const crdContainer = find<Deployment>(crdMode, 'Deployment', 'catalogd-ts', NS).spec.template
      .spec.containers[0]!;
    expect(crdContainer.args.filter((a) => /^--(object-view|api-listen)=/.test(a))).to.deep.equal(
      [],
    );
  });

  it('registers the APIService at the Service port that reaches the api container port', () => {
    const apiService = find<ApiService>(served, 'APIService', API_SERVICE);
    expect(apiService.spec).to.include({
      group: SERVED_GROUP,
      version: 'v1',
      groupPriorityMinimum: 100,
      versionPriority: 15,
    });
    expect(apiService.spec.insecureSkipTLSVerify ?? false).to.equal(false);
    const { service } = apiService.spec;
    expect(service).to.include({ name: 'catalogd-ts', namespace: NS });
    const svc = find<KObject & { spec: { ports: Port[] } }>(served, 'Service', service.name, NS);
    const port = svc.spec.ports.find((p) => p.port === service.port);
    expect(port, `Service port ${service.port}`).to.include({ name: 'api', targetPort: 'api' });
    // Service ports differ in number (config/tls's content port is 443).
    const numbers = svc.spec.ports.map((p) => p.port);
    expect(new Set(numbers).size).to.equal(numbers.length);
    expect(crdMode.filter((o) => o.kind === 'APIService')).to.deep.equal([]);
  });

  it('has cert-manager inject the CA of the Certificate whose Secret the controller mounts', () => {
    const withCertManager = render(['tls', 'served', 'cert-manager']);
    const ref = find(withCertManager, 'APIService', API_SERVICE).metadata.annotations?.[
      'cert-manager.io/inject-ca-from'
    ];
    const [ns, name] = (ref ?? '').split('/');
    const cert = find<KObject & { spec: { secretName: string } }>(
      withCertManager,
      'Certificate',
      name ?? '',
      ns,
    );
    const volumes = find<Deployment>(withCertManager, 'Deployment', 'catalogd-ts', NS).spec.template
      .spec.volumes;
    expect(volumes.map((v) => v.secret?.secretName)).to.include(cert.spec.secretName);
  });

  it('binds the controller to system:auth-delegator and the authentication reader in kube-system', () => {
    const delegator = served.find(
      (o): o is Binding =>
        o.kind === 'ClusterRoleBinding' && (o as Binding).roleRef.name === 'system:auth-delegator',
    );
    expect(delegator?.roleRef.kind).to.equal('ClusterRole');
    expect(delegator?.subjects).to.deep.equal([controllerSa]);
    const reader = served.find(
      (o): o is Binding =>
        o.kind === 'RoleBinding' &&
        (o as Binding).roleRef.name === 'extension-apiserver-authentication-reader',
    );
    expect(reader?.metadata.namespace).to.equal('kube-system');
    expect(reader?.roleRef.kind).to.equal('Role');
    expect(reader?.subjects).to.deep.equal([controllerSa]);
  });

  it('lets users read the served kinds through the view, edit and admin roles', () => {
    const viewer = find<KObject & { rules: Rule[] }>(
      served,
      'ClusterRole',
      'catalogd-ts-catalogmetadata-viewer',
    );
    for (const role of ['view', 'edit', 'admin']) {
      expect(viewer.metadata.labels).to.have.property(
        `rbac.authorization.k8s.io/aggregate-to-${role}`,
        'true',
      );
    }
    expect(viewer.rules).to.deep.equal([
      {
        apiGroups: [SERVED_GROUP],
        resources: ['catalogmetadata', 'catalogpackages'],
        verbs: ['get', 'list', 'watch'],
      },
    ]);
  });

  it('renders in either order of config/tls and config/served, with the same flags and ports', () => {
    const swapped = render(['served', 'tls']);
    const ids = (objs: KObject[]) => objs.map((o) => `${o.kind}/${o.metadata.name}`).sort();
    expect(ids(swapped)).to.deep.equal(ids(served));
    const container = (objs: KObject[]) =>
      find<Deployment>(objs, 'Deployment', 'catalogd-ts', NS).spec.template.spec.containers[0]!;
    expect(container(swapped).args).to.have.members(container(served).args);
    expect(container(swapped).ports).to.have.deep.members(container(served).ports);
    const ports = (objs: KObject[]) =>
      find<KObject & { spec: { ports: Port[] } }>(objs, 'Service', 'catalogd-ts', NS).spec.ports;
    expect(ports(swapped)).to.have.deep.members(ports(served));
  });
});

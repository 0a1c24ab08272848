// The API as users meet it: manifests applied with kubectl to the real apiserver, accepted or
// rejected with the CRDs' validation messages; printer columns and short names in `kubectl get`.
import { expect } from 'chai';
import path from 'node:path';
import { repoRoot } from '../support/cluster.js';
import { kubectl, kubectlOk } from '../support/kubectl.js';
import { uniqueName } from '../support/names.js';

/** Installs the CRDs (idempotent: other suites may do the same) and waits until they are served. */
async function installCRDs(): Promise<void> {
  await kubectlOk([
    'apply',
    '--server-side',
    '--force-conflicts',
    '-f',
    path.join(repoRoot, 'crds'),
  ]);
  await kubectlOk([
    'wait',
    '--for=condition=Established',
    '--timeout=60s',
    'crd/clustercatalogs.olm.operatorframework.io',
    'crd/catalogmetadata.olm.operatorframework.io',
  ]);
}

const DIGEST = 'sha256:200d4ddb2a73594b91358fe6397424e975205bfbe44614f5846033cad64b3f05';

/** A ClusterCatalog manifest with the given spec (YAML flow style, one line). */
function catalog(spec: string): string {
  return `apiVersion: olm.operatorframework.io/v1
kind: ClusterCatalog
metadata:
  name: api-validation
spec: ${spec}
`;
}

/** A CatalogMetadata manifest with the given spec. */
function metadata(spec: string): string {
  return `apiVersion: olm.operatorframework.io/v1
kind: CatalogMetadata
metadata:
  name: api-validation
spec: ${spec}
`;
}

/**
 * upstream's own sample (operator-framework's default operatorhubio ClusterCatalog, v1 form),
 * byte for byte; the namespace is ignored by kubectl for a cluster-scoped kind, as upstream.
 */
const UPSTREAM_OPERATORHUBIO = `apiVersion: olm.operatorframework.io/v1
kind: ClusterCatalog
metadata:
  name: operatorhubio
  namespace: olmv1-system
spec:
  source:
    type: Image
    image:
      ref: quay.io/operatorhubio/catalog:latest
      pollIntervalMinutes: 10
`;

interface Case {
  name: string;
  manifest: string;
  /** Absent: accepted. Otherwise every string must appear in kubectl's error output. */
  rejectedWith?: string[];
}

const CASES: Case[] = [
  { name: "upstream's operatorhubio sample, unchanged", manifest: UPSTREAM_OPERATORHUBIO },
  {
    name: 'tag ref without polling',
    manifest: catalog(
      `{source: {type: Image, image: {ref: "quay.io/operatorhubio/catalog:latest"}}}`,
    ),
  },
  {
    name: 'digest ref, priority and availabilityMode Unavailable',
    manifest: catalog(
      `{priority: -5, availabilityMode: Unavailable, source: {type: Image, image: {ref: "quay.io/operatorhubio/catalog@${DIGEST}"}}}`,
    ),
  },
  {
    name: 'registry with a port',
    manifest: catalog(
      `{source: {type: Image, image: {ref: "127.0.0.1:5000/catalogs/test-catalog:v1.2.3"}}}`,
    ),
  },
  {
    name: 'digest ref with pollIntervalMinutes',
    manifest: catalog(
      `{source: {type: Image, image: {ref: "quay.io/operatorhubio/catalog@${DIGEST}", pollIntervalMinutes: 5}}}`,
    ),
    rejectedWith: [
      'spec.source.image',
      'cannot specify pollIntervalMinutes while using digest-based image',
    ],
  },
  {
    name: 'unknown source type',
    manifest: catalog(
      `{source: {type: Git, image: {ref: "quay.io/operatorhubio/catalog:latest"}}}`,
    ),
    rejectedWith: ['spec.source.type: Unsupported value: "Git": supported values: "Image"'],
  },
  {
    name: 'type Image without image',
    manifest: catalog(`{source: {type: Image}}`),
    rejectedWith: [
      'spec.source',
      'image is required when source type is Image, and forbidden otherwise',
    ],
  },
  {
    name: 'missing source',
    manifest: catalog(`{}`),
    rejectedWith: ['spec.source: Required value'],
  },
  {
    name: 'ref without tag or digest',
    manifest: catalog(`{source: {type: Image, image: {ref: "quay.io/operatorhubio/catalog"}}}`),
    rejectedWith: ['spec.source.image.ref', 'must end with a digest or a tag'],
  },
  {
    name: 'ref with an invalid tag',
    manifest: catalog(
      `{source: {type: Image, image: {ref: "quay.io/operatorhubio/catalog:-latest"}}}`,
    ),
    rejectedWith: [
      'spec.source.image.ref',
      'tag is invalid. valid tags must begin with a word character',
    ],
  },
  {
    name: 'ref with a too short digest',
    manifest: catalog(
      `{source: {type: Image, image: {ref: "quay.io/operatorhubio/catalog@sha256:abc"}}}`,
    ),
    rejectedWith: ['digest is not valid. the encoded string must be at least 32 characters'],
  },
  {
    name: 'ref with an uppercase repository name',
    manifest: catalog(
      `{source: {type: Image, image: {ref: "quay.io/OperatorHubIO/Catalog:latest"}}}`,
    ),
    rejectedWith: ['a valid name is required'],
  },
  {
    name: 'ref longer than 1000 characters',
    manifest: catalog(
      `{source: {type: Image, image: {ref: "quay.io/${'a'.repeat(1000)}:latest"}}}`,
    ),
    rejectedWith: ['spec.source.image.ref: Too long: may not be more than 1000 bytes'],
  },
  {
    name: 'pollIntervalMinutes 0',
    manifest: catalog(
      `{source: {type: Image, image: {ref: "quay.io/operatorhubio/catalog:latest", pollIntervalMinutes: 0}}}`,
    ),
    rejectedWith: ['spec.source.image.pollIntervalMinutes', 'should be greater than or equal to 1'],
  },
  {
    name: 'bad availabilityMode',
    manifest: catalog(
      `{availabilityMode: Sometimes, source: {type: Image, image: {ref: "quay.io/operatorhubio/catalog:latest"}}}`,
    ),
    rejectedWith: [
      'spec.availabilityMode: Unsupported value: "Sometimes"',
      'supported values: "Unavailable", "Available"',
    ],
  },
  {
    name: 'priority beyond int32',
    manifest: catalog(
      `{priority: 2147483648, source: {type: Image, image: {ref: "quay.io/operatorhubio/catalog:latest"}}}`,
    ),
    rejectedWith: ['spec.priority', 'should be less than or equal to 2147483647'],
  },
  {
    name: 'CatalogMetadata with content',
    manifest: metadata(
      `{catalog: {name: cat}, schema: olm.package, name: etcd, content: {schema: olm.package, name: etcd, icon: {mediatype: x, base64data: ""}}}`,
    ),
  },
  {
    name: 'CatalogMetadata with contentOmitted',
    manifest: metadata(
      `{catalog: {name: cat}, schema: olm.bundle, package: etcd, name: etcd.v1, contentOmitted: {bytes: 2000000, url: "https://catalogd/catalogs/cat/api/v1/metas?schema=olm.bundle"}}`,
    ),
  },
  {
    name: 'CatalogMetadata with both content and contentOmitted',
    manifest: metadata(
      `{catalog: {name: cat}, schema: olm.package, content: {schema: olm.package}, contentOmitted: {bytes: 1, url: "u"}}`,
    ),
    rejectedWith: [
      'spec: Invalid value',
      'content must be set, unless contentOmitted is set without parts',
    ],
  },
  {
    // The lean profile: a partial content beside contentOmitted.parts.
    name: 'CatalogMetadata with a partial content and contentOmitted.parts',
    manifest: metadata(
      `{catalog: {name: cat}, schema: olm.package, content: {schema: olm.package}, contentOmitted: {bytes: 9, url: "u", parts: [{path: icon, bytes: 5}]}}`,
    ),
  },
  {
    name: 'CatalogMetadata with contentOmitted.parts and no content',
    manifest: metadata(
      `{catalog: {name: cat}, schema: olm.package, contentOmitted: {bytes: 9, url: "u", parts: [{path: icon, bytes: 5}]}}`,
    ),
    rejectedWith: ['spec: Invalid value', 'contentOmitted.parts requires content'],
  },
  {
    name: 'CatalogMetadata without schema',
    manifest: metadata(`{catalog: {name: cat}, content: {}}`),
    rejectedWith: ['spec.schema: Required value'],
  },
];

describe('API: ClusterCatalog and CatalogMetadata CRDs on the apiserver', () => {
  before(async function () {
    this.timeout(90_000);
    await installCRDs();
  });

  describe('validation (kubectl apply --dry-run=server)', () => {
    for (const c of CASES) {
      it(`${c.rejectedWith ? 'rejects' : 'accepts'}: ${c.name}`, async () => {
        const r = await kubectl(['apply', '--dry-run=server', '-o', 'json', '-f', '-'], c.manifest);
        if (!c.rejectedWith) {
          expect(r.code, r.stderr).to.equal(0);
          return;
        }
        expect(r.code, `accepted, expected a rejection: ${r.stdout}`).to.not.equal(0);
        for (const fragment of c.rejectedWith) expect(r.stderr).to.contain(fragment);
      });
    }

    it('accepts the samples of config/samples (through their kustomization)', async () => {
      const r = await kubectl([
        'apply',
        '--dry-run=server',
        '-k',
        path.join(repoRoot, 'config', 'samples'),
      ]);
      expect(r.code, r.stderr).to.equal(0);
      expect(r.stdout).to.contain('clustercatalog.olm.operatorframework.io/operatorhubio');
    });

    it('installs the same CRDs through config/crd (kustomize)', async () => {
      const r = await kubectl([
        'apply',
        '--server-side',
        '--dry-run=server',
        '-k',
        path.join(repoRoot, 'config', 'crd'),
      ]);
      expect(r.code, r.stderr).to.equal(0);
      expect(r.stdout).to.contain('clustercatalogs.olm.operatorframework.io');
      expect(r.stdout).to.contain('catalogmetadata.olm.operatorframework.io');
    });

    it('defaults availabilityMode to Available and priority to 0, as upstream', async () => {
      const out = await kubectlOk(
        ['apply', '--dry-run=server', '-o', 'json', '-f', '-'],
        UPSTREAM_OPERATORHUBIO,
      );
      const obj = JSON.parse(out) as { spec: Record<string, unknown> };
      expect(obj.spec).to.deep.include({ availabilityMode: 'Available', priority: 0 });
    });
  });

  describe('kubectl get', () => {
    const catalogName = uniqueName('api-cols');
    const blobName = uniqueName('api-cols-blob');

    after(async () => {
      await kubectl(['delete', '--ignore-not-found', '--wait=false', 'catalogmetadata', blobName]);
      await kubectl([
        'delete',
        '--ignore-not-found',
        '--wait=false',
        'clustercatalog',
        catalogName,
      ]);
    });

    it('shows ClusterCatalog columns LastUnpacked, Serving, Age (status set through the status subresource)', async () => {
      await kubectlOk(
        ['apply', '-f', '-'],
        catalog(
          `{source: {type: Image, image: {ref: "quay.io/operatorhubio/catalog:latest"}}}`,
        ).replace('name: api-validation', `name: ${catalogName}`),
      );
      const status = {
        status: {
          lastUnpacked: '2026-01-02T03:04:05Z',
          conditions: [
            {
              type: 'Serving',
              status: 'True',
              reason: 'Available',
              message: 'Serving desired content from resolved source',
              lastTransitionTime: '2026-01-02T03:04:05Z',
              observedGeneration: 1,
            },
          ],
          contentHash: `sha256:${'0'.repeat(64)}`,
          objectCount: 0,
          syncingTo: '',
          observedGeneration: 1,
          resolvedSource: {
            type: 'Image',
            image: { ref: `quay.io/operatorhubio/catalog@${DIGEST}` },
          },
          urls: { base: `https://catalogd.example:8443/catalogs/${catalogName}` },
        },
      };
      await kubectlOk([
        'patch',
        'clustercatalog',
        catalogName,
        '--subresource=status',
        '--type=merge',
        '-p',
        JSON.stringify(status),
      ]);
      for (const resource of ['clustercatalogs', 'clustercatalog', 'cc']) {
        const out = await kubectlOk(['get', resource, catalogName]);
        const [header, row] = out.trim().split('\n');
        expect(header?.split(/\s+/)).to.deep.equal(['NAME', 'LASTUNPACKED', 'SERVING', 'AGE']);
        const [name, lastUnpacked, serving] = row?.split(/\s+/) ?? [];
        expect([name, serving]).to.deep.equal([catalogName, 'True']);
        expect(lastUnpacked).to.match(/^\d+[smhdy]/); // an age, e.g. 320d
      }
    });

    it('shows CatalogMetadata columns Catalog, Schema, Package, Name, Age and selects by label', async () => {
      const manifest = `apiVersion: olm.operatorframework.io/v1
kind: CatalogMetadata
metadata:
  name: ${blobName}
  labels: {catalog: ${catalogName}, schema: olm.channel, package: etcd, name: stable, packageOrName: etcd}
spec:
  catalog: {name: ${catalogName}}
  schema: olm.channel
  package: etcd
  name: stable
  content: {schema: olm.channel, package: etcd, name: stable, entries: [{name: etcd.v1.0.0}]}
`;
      await kubectlOk(['apply', '-f', '-'], manifest);
      for (const resource of ['catalogmetadata', 'cmeta']) {
        const out = await kubectlOk(['get', resource, '-l', `catalog=${catalogName},package=etcd`]);
        const [header, row, ...rest] = out.trim().split('\n');
        expect(rest).to.deep.equal([]);
        expect(header?.split(/\s+/)).to.deep.equal([
          'NAME',
          'CATALOG',
          'SCHEMA',
          'PACKAGE',
          'NAME',
          'AGE',
        ]);
        expect(row?.split(/\s+/).slice(0, 5)).to.deep.equal([
          blobName,
          catalogName,
          'olm.channel',
          'etcd',
          'stable',
        ]);
      }
    });

    it('short names cc and cmeta are ours alone on this apiserver', async () => {
      const out = await kubectlOk(['api-resources', '--no-headers']);
      const owners = (shortName: string) =>
        out
          .split('\n')
          .map((line) => line.trim().split(/\s+/))
          .filter((cols) => cols.length >= 5 && cols[1]?.split(',').includes(shortName))
          .map((cols) => `${cols[0]}.${cols[2]}`);
      expect(owners('cc')).to.deep.equal(['clustercatalogs.olm.operatorframework.io/v1']);
      expect(owners('cmeta')).to.deep.equal(['catalogmetadata.olm.operatorframework.io/v1']);
    });
  });
});

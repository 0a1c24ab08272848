// Discovery and OpenAPI documents, read through HTTP as kubectl and the aggregator read them.
import { expect } from 'chai';
import { catalogMetadataCRD } from '../api/v1/crds.js';
import { getText } from '../server/test-catalogs.test.js';
import { LIST_DEFINITION, OBJECT_DEFINITION } from './openapi.js';
import { catalogBlobs, parseBlobs, servedFixture } from './test-served.test.js';
import type { ServedFixture } from './test-served.test.js';

const GV = 'content.olm.operatorframework.io/v1';

describe('served API discovery and OpenAPI (HTTP)', () => {
  let f: ServedFixture;
  before(async () => {
    f = await servedFixture('ops', [await parseBlobs('ops', catalogBlobs(1))]);
  });
  after(async () => f.close());

  const json = async (target: string, accept?: string) => {
    const r = await getText(f, target, accept ? { Accept: accept } : {});
    expect(r.status, target).to.equal(200);
    return { type: r.headers['content-type'], body: JSON.parse(r.body) as Record<string, unknown> };
  };

  it('lists the group, its version and the resource as the CRD names it', async () => {
    const crd = catalogMetadataCRD();
    expect((await json('/apis')).body).to.deep.equal({
      kind: 'APIGroupList',
      apiVersion: 'v1',
      groups: [
        {
          name: 'content.olm.operatorframework.io',
          versions: [{ groupVersion: GV, version: 'v1' }],
          preferredVersion: { groupVersion: GV, version: 'v1' },
        },
      ],
    });
    expect((await json('/apis/content.olm.operatorframework.io')).body.kind).to.equal('APIGroup');
    const resources = (await json(`/apis/${GV}`)).body;
    expect(resources).to.deep.include({ kind: 'APIResourceList', groupVersion: GV });
    expect(resources.resources).to.deep.equal([
      {
        name: crd.spec.names.plural,
        singularName: crd.spec.names.singular,
        namespaced: false,
        kind: crd.spec.names.kind,
        verbs: ['get', 'list', 'patch', 'watch'],
        shortNames: crd.spec.names.shortNames,
        categories: crd.spec.names.categories,
      },
      {
        name: 'catalogpackages',
        singularName: 'catalogpackage',
        namespaced: false,
        kind: 'CatalogPackage',
        verbs: ['get', 'list', 'patch', 'watch'],
        shortNames: ['cpkg'],
        categories: crd.spec.names.categories,
      },
    ]);
  });

  it('answers aggregated discovery (apidiscovery.k8s.io/v2) when asked for it', async () => {
    const accept =
      'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json';
    const { type, body } = await json('/apis', accept);
    expect(type).to.equal('application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList');
    expect(body.kind).to.equal('APIGroupDiscoveryList');
    const items = body.items as Array<{
      versions: Array<{ resources: Array<Record<string, unknown>> }>;
    }>;
    expect(items[0]!.versions[0]!.resources[0]).to.deep.include({
      resource: 'catalogmetadata',
      scope: 'Cluster',
      responseKind: {
        group: 'content.olm.operatorframework.io',
        version: 'v1',
        kind: 'CatalogMetadata',
      },
    });
  });

  it('serves the CRD schema as OpenAPI v3 (index and group-version) and v2, with the kind', async () => {
    const index = (await json('/openapi/v3')).body as {
      paths: Record<string, { serverRelativeURL: string }>;
    };
    const url = index.paths[`apis/${GV}`]!.serverRelativeURL;
    expect(url).to.match(
      /^\/openapi\/v3\/apis\/content\.olm\.operatorframework\.io\/v1\?hash=[0-9A-F]{128}$/,
    );
    const v3 = (await json(url)).body as {
      components: { schemas: Record<string, Record<string, unknown>> };
    };
    const schema = v3.components.schemas[OBJECT_DEFINITION]!;
    expect(schema['x-kubernetes-group-version-kind']).to.deep.equal([
      { group: 'content.olm.operatorframework.io', kind: 'CatalogMetadata', version: 'v1' },
    ]);
    expect(schema.properties).to.deep.equal(
      catalogMetadataCRD().spec.versions[0]!.schema.openAPIV3Schema.properties,
    );
    expect(
      v3.components.schemas[LIST_DEFINITION]!['x-kubernetes-group-version-kind'],
    ).to.have.length(1);
    // kubectl's query-parameter verifiers: a PATCH of the kind that takes dryRun and fieldValidation.
    const patchOf = (paths: Record<string, { patch?: { parameters: Array<{ name: string }> } }>) =>
      Object.values(paths)
        .find((p) => p.patch)
        ?.patch?.parameters.map((p) => p.name);
    expect(patchOf((v3 as unknown as { paths: never }).paths)).to.include.members([
      'dryRun',
      'fieldValidation',
    ]);
    const v2 = await getText(f, '/openapi/v2');
    expect(patchOf((JSON.parse(v2.body) as { paths: never }).paths)).to.include.members([
      'dryRun',
      'fieldValidation',
    ]);
    const etag = v2.headers.etag!;
    expect((await getText(f, '/openapi/v2', { 'If-None-Match': etag })).status).to.equal(304);
    expect(
      (await getText(f, url, { 'If-None-Match': `"${url.split('hash=')[1]!}"` })).status,
    ).to.equal(304);
    expect(JSON.parse(v2.body)).to.have.nested.property(
      `definitions.${OBJECT_DEFINITION.replaceAll('.', '\\.')}.properties.spec`,
    );
    expect(v2.body).to.not.include('"nullable"').and.not.include('"anyOf"');
  });

  it('answers /apis/<group>/<version> also when the front calls it a resource request without a resource', async () => {
    const res = { headers: {} as Record<string, string>, status: 0, body: '' };
    const fake = {
      writeHead: (status: number, headers: Record<string, string>) => {
        res.status = status;
        res.headers = headers;
      },
      end: (body: string) => (res.body = body),
    };
    await f.api.handle(
      { method: 'GET', url: `/apis/${GV}`, headers: {} } as never,
      fake as never,
      {
        isResourceRequest: true,
        path: `/apis/${GV}`,
        verb: 'list',
        apiGroup: 'content.olm.operatorframework.io',
        apiVersion: 'v1',
        resource: '',
        subresource: '',
        name: '',
      },
      { name: 'u', groups: [], extra: {} },
    );
    expect(res.status).to.equal(200);
    expect((JSON.parse(res.body) as { kind: string }).kind).to.equal('APIResourceList');
  });

  it('answers 404 Status for other paths', async () => {
    const r = await getText(f, '/apis/other.example.com/v1');
    expect(r.status).to.equal(404);
    expect(JSON.parse(r.body)).to.include({ kind: 'Status', reason: 'NotFound' });
  });
});

// Proves the local parts are real: the apiserver establishes CRDs, kube-controller-manager's
// garbage collector deletes dependents of a deleted owner, and the registry speaks the
// distribution HTTP API.
import { expect } from 'chai';
import { createHash } from 'node:crypto';
import { crdManifest } from '../support/crd-manifest.js';
import { kubectl, kubectlOk } from '../support/kubectl.js';
import { uniqueName } from '../support/names.js';
import { pollUntil } from '../support/poll.js';

const group = 'smoke.catalogd-ts.test';

describe('smoke: the local control plane and registry are real', () => {
  const suffix = uniqueName('s').slice(2);
  const plural = `widgets${suffix}`;
  const kind = `Widget${suffix}`;

  // The CRD is left in place (its name is unique, and the cluster is discarded after the run):
  // deleting a CRD while the garbage collector monitors it can stall the GC on that monitor's
  // cache sync (the kubernetes#60037 class of GC stalls), and later tests rely on the GC.

  it('establishes a CustomResourceDefinition', async () => {
    await kubectlOk(
      ['apply', '-f', '-'],
      JSON.stringify(crdManifest({ group, kind, plural, scope: 'Cluster' })),
    );
    await kubectlOk([
      'wait',
      '--for=condition=Established',
      '--timeout=60s',
      `crd/${plural}.${group}`,
    ]);
    const out = await kubectlOk(['get', plural, '-o', 'name']);
    expect(out.trim()).to.equal('');
  });

  it('garbage-collects a dependent when its owner is deleted', async function () {
    this.timeout(180_000);
    const owner = uniqueName('owner');
    const dependent = uniqueName('dependent');
    await kubectlOk(
      ['create', '-f', '-'],
      JSON.stringify({ apiVersion: `${group}/v1`, kind, metadata: { name: owner } }),
    );
    const uid = (await kubectlOk(['get', plural, owner, '-o', 'jsonpath={.metadata.uid}'])).trim();
    await kubectlOk(
      ['create', '-f', '-'],
      JSON.stringify({
        apiVersion: `${group}/v1`,
        kind,
        metadata: {
          name: dependent,
          ownerReferences: [
            {
              apiVersion: `${group}/v1`,
              kind,
              name: owner,
              uid,
              controller: true,
              blockOwnerDeletion: true,
            },
          ],
        },
      }),
    );
    await kubectlOk(['delete', plural, owner, '--wait=false']);
    // The garbage collector notices a new resource type at its next discovery resync (30s).
    await pollUntil(async () => (await kubectl(['get', plural, dependent])).code !== 0, {
      timeoutMs: 120_000,
      what: `the garbage collector to delete ${dependent}`,
    });
    const r = await kubectl(['get', plural, dependent]);
    expect(r.stderr).to.match(/NotFound/);
  });

  it('stores an image in the registry and serves its manifest by digest', async () => {
    const registry = process.env.REGISTRY;
    expect(registry, 'REGISTRY').to.be.a('string');
    const repo = `smoke/${uniqueName('img')}`;
    const base = `http://${registry}/v2/${repo}`;
    const sha = (b: Buffer): string => `sha256:${createHash('sha256').update(b).digest('hex')}`;

    async function pushBlob(data: Buffer): Promise<string> {
      const digest = sha(data);
      const start = await fetch(`${base}/blobs/uploads/`, { method: 'POST' });
      expect(start.status).to.equal(202);
      const location = new URL(start.headers.get('location') ?? '', base);
      location.searchParams.set('digest', digest);
      const put = await fetch(location, {
        method: 'PUT',
        body: data,
        headers: { 'content-type': 'application/octet-stream' },
      });
      expect(put.status).to.equal(201);
      return digest;
    }

    const config = Buffer.from(
      JSON.stringify({
        architecture: 'amd64',
        os: 'linux',
        rootfs: { type: 'layers', diff_ids: [] },
      }),
    );
    const layer = Buffer.from('not really a tarball, the registry does not care');
    const manifest = Buffer.from(
      JSON.stringify({
        schemaVersion: 2,
        mediaType: 'application/vnd.oci.image.manifest.v1+json',
        config: {
          mediaType: 'application/vnd.oci.image.config.v1+json',
          digest: await pushBlob(config),
          size: config.length,
        },
        layers: [
          {
            mediaType: 'application/vnd.oci.image.layer.v1.tar',
            digest: await pushBlob(layer),
            size: layer.length,
          },
        ],
      }),
    );
    const put = await fetch(`${base}/manifests/v1`, {
      method: 'PUT',
      body: manifest,
      headers: { 'content-type': 'application/vnd.oci.image.manifest.v1+json' },
    });
    expect(put.status).to.equal(201);
    expect(put.headers.get('docker-content-digest')).to.equal(sha(manifest));

    const get = await fetch(`${base}/manifests/${sha(manifest)}`, {
      headers: { accept: 'application/vnd.oci.image.manifest.v1+json' },
    });
    expect(get.status).to.equal(200);
    expect(Buffer.from(await get.arrayBuffer())).to.deep.equal(manifest);
  });
});

// The puller with a signature policy, over an in-memory registry that logs requests: signatures
// are read on the resolved digest before the config or a layer is requested; a refused image
// costs no config or layer request, and its error is an image content error (final for the
// digest pulled).
import { expect } from 'chai';
import { Readable } from 'node:stream';
import { oneLayerImage } from '../../test/support/oci-image.js';
import { cosignSign, payloadFor, sha256, testKey } from '../../test/support/signatures.js';
import { tempDirEach } from '../../test/support/temp-dir.js';
import { findSourceError, isTerminal } from './errors.js';
import type { HttpClient } from './http.js';
import { MediaTypes } from './manifest.js';
import { ImagePuller } from './puller.js';
import { parseSignaturePolicy } from './signature/policy.js';
import { SignatureVerifier } from './signature/verifier.js';

const { config, layer, manifest, digest: DIGEST } = oneLayerImage(Buffer.alloc(512, 1));
const key = testKey('p256');

function registry(signed: boolean) {
  const objects = new Map<string, { ct?: string; body: Buffer }>();
  objects.set(`manifests/v1`, { ct: MediaTypes.ociManifest, body: manifest });
  objects.set(`manifests/${DIGEST}`, { ct: MediaTypes.ociManifest, body: manifest });
  objects.set(`blobs/${sha256(config)}`, { body: config });
  objects.set(`blobs/${sha256(layer)}`, { body: layer });
  if (signed) {
    const payload = payloadFor('reg.example/team/cat', DIGEST);
    objects.set(`blobs/${sha256(payload)}`, { body: payload });
    const sig = Buffer.from(
      JSON.stringify({
        schemaVersion: 2,
        mediaType: MediaTypes.ociManifest,
        config: { mediaType: MediaTypes.ociConfig, digest: sha256(config), size: config.length },
        layers: [
          {
            mediaType: 'application/vnd.dev.cosign.simplesigning.v1+json',
            digest: sha256(payload),
            size: payload.length,
            annotations: { 'dev.cosignproject.cosign/signature': cosignSign(key, payload) },
          },
        ],
      }),
    );
    objects.set(`manifests/${DIGEST.replace(':', '-')}.sig`, {
      ct: MediaTypes.ociManifest,
      body: sig,
    });
  }
  const requests: string[] = [];
  const http: HttpClient = {
    async send(req) {
      const p = req.url.pathname.replace('/v2/team/cat/', '');
      requests.push(p);
      const o = objects.get(p);
      if (!o)
        return {
          status: 404,
          headers: {},
          body: Readable.from([Buffer.from('404 page not found')]),
        };
      return {
        status: 200,
        headers: o.ct ? { 'content-type': o.ct } : {},
        body: Readable.from([o.body]),
      };
    },
  };
  return { http, requests };
}

describe('puller with a signature policy', () => {
  const dir = tempDirEach('pull-sig-');

  async function puller(http: HttpClient) {
    const policy = await parseSignaturePolicy(
      JSON.stringify({
        default: [
          { type: 'sigstoreSigned', keyData: Buffer.from(key.publicPem).toString('base64') },
        ],
      }),
      () => Promise.reject(new Error('no files')),
    );
    return new ImagePuller({
      cacheDir: dir(),
      http,
      signatures: new SignatureVerifier(() => policy),
    });
  }

  it('refuses an unsigned digest before its config or a layer is requested', async () => {
    const { http, requests } = registry(false);
    const err = await (await puller(http)).pull('reg.example/team/cat:v1').catch((e: unknown) => e);
    expect(findSourceError(err)?.code).to.equal('SignatureRejected');
    expect((err as Error).message).to.match(
      /^pull catalog image reg.example\/team\/cat:v1: no signature found for sha256:/,
    );
    expect(isTerminal(err)).to.equal(false);
    expect(requests).to.deep.equal([
      'manifests/v1',
      `manifests/${DIGEST.replace(':', '-')}.sig`,
      `referrers/${DIGEST}`,
      `manifests/${DIGEST.replace(':', '-')}`,
    ]);
    const byDigest = await (
      await puller(http)
    )
      .pull(`reg.example/team/cat@${DIGEST}`)
      .catch((e: unknown) => e);
    expect(isTerminal(byDigest)).to.equal(true);
  });

  it('reads the signature before the config of a signed image', async () => {
    const { http, requests } = registry(true);
    // The layer is no tar: the pull fails in the unpack, after the config was read.
    await (await puller(http)).pull('reg.example/team/cat:v1').catch(() => undefined);
    const sig = requests.indexOf(`manifests/${DIGEST.replace(':', '-')}.sig`);
    const cfg = requests.indexOf(`blobs/${sha256(config)}`);
    expect(sig).to.be.greaterThan(0);
    expect(cfg).to.be.greaterThan(sig);
  });
});

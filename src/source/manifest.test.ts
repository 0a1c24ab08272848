import { expect } from 'chai';
import { isTerminal } from '../util/errors.js';
import { findSourceError } from './errors.js';
import {
  layerCompression,
  MediaTypes,
  parseManifest,
  parsePlatform,
  selectPlatform,
} from './manifest.js';

const d = (c: string) => 'sha256:' + c.repeat(64);

describe('source/manifest', () => {
  const index = parseManifest(
    Buffer.from(
      JSON.stringify({
        schemaVersion: 2,
        manifests: [
          {
            mediaType: MediaTypes.ociManifest,
            digest: d('1'),
            size: 10,
            platform: { os: 'linux', architecture: 'arm64' },
          },
          {
            mediaType: MediaTypes.ociManifest,
            digest: d('2'),
            size: 10,
            platform: { os: 'linux', architecture: 'amd64' },
          },
          {
            mediaType: MediaTypes.ociManifest,
            digest: d('3'),
            size: 10,
            platform: { os: 'linux', architecture: 'arm', variant: 'v6' },
          },
          {
            mediaType: MediaTypes.ociManifest,
            digest: d('4'),
            size: 10,
            platform: { os: 'unknown', architecture: 'unknown' },
          },
        ],
      }),
    ),
    MediaTypes.ociIndex,
    'x',
  );

  it('parses indexes and picks the platform (default linux/amd64; arm64 = arm64/v8)', () => {
    expect(index.kind).to.equal('index');
    if (index.kind !== 'index') return;
    expect(selectPlatform(index.manifests, parsePlatform('linux/amd64'), 'x').digest).to.equal(
      d('2'),
    );
    expect(selectPlatform(index.manifests, parsePlatform('linux/arm64/v8'), 'x').digest).to.equal(
      d('1'),
    );
    expect(selectPlatform(index.manifests, parsePlatform('linux/arm/v6'), 'x').digest).to.equal(
      d('3'),
    );
    const err = (() => {
      try {
        selectPlatform(index.manifests, parsePlatform('linux/s390x'), 'x');
      } catch (e) {
        return e;
      }
    })();
    expect(findSourceError(err)?.code).to.equal('NoMatchingPlatform');
    expect(isTerminal(err)).to.equal(true);
  });

  it('parses Docker v2 manifests, with or without mediaType in the body', () => {
    const body = {
      schemaVersion: 2,
      config: { mediaType: MediaTypes.dockerConfig, digest: d('a'), size: 5 },
      layers: [{ mediaType: MediaTypes.dockerLayerGzip, digest: d('b'), size: 7 }],
    };
    const m = parseManifest(Buffer.from(JSON.stringify(body)), MediaTypes.dockerManifest, 'x');
    expect(m).to.deep.include({ kind: 'manifest', mediaType: MediaTypes.dockerManifest });
    const m2 = parseManifest(
      Buffer.from(JSON.stringify({ ...body, mediaType: MediaTypes.ociManifest })),
      undefined,
      'x',
    );
    expect(m2.mediaType).to.equal(MediaTypes.ociManifest);
  });

  it('refuses malformed and unknown manifests', () => {
    expect(() => parseManifest(Buffer.from('{'), undefined, 'x')).to.throw(/not valid JSON/);
    expect(() =>
      parseManifest(Buffer.from('{"mediaType":"application/x"}'), undefined, 'x'),
    ).to.throw(/unsupported/);
    expect(() =>
      parseManifest(
        Buffer.from(JSON.stringify({ layers: [{ digest: '../x', size: 1 }], config: {} })),
        undefined,
        'x',
      ),
    ).to.throw(/malformed/);
  });

  it('knows layer compressions', () => {
    expect(layerCompression(MediaTypes.ociLayerGzip, 'x')).to.equal('gzip');
    expect(layerCompression(MediaTypes.dockerLayerGzip, 'x')).to.equal('gzip');
    expect(layerCompression(MediaTypes.ociLayerZstd, 'x')).to.equal('zstd');
    expect(layerCompression(MediaTypes.ociLayer, 'x')).to.equal('none');
    expect(() =>
      layerCompression('application/vnd.oci.image.layer.nondistributable.v1.tar+gzip', 'x'),
    ).to.throw();
  });
});

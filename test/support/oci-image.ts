// A minimal one-layer OCI image as bytes, for tests that serve it from an in-memory registry.
import { digestOf } from '../../src/source/digest.js';
import { MediaTypes } from '../../src/source/manifest.js';

export interface OneLayerImage {
  config: Buffer;
  layer: Buffer;
  manifest: Buffer;
  /** The manifest's digest. */
  digest: string;
}

/** An OCI manifest (linux/amd64 config) over the one layer given. */
export function oneLayerImage(layer: Buffer): OneLayerImage {
  const config = Buffer.from(JSON.stringify({ architecture: 'amd64', os: 'linux', config: {} }));
  const manifest = Buffer.from(
    JSON.stringify({
      schemaVersion: 2,
      mediaType: MediaTypes.ociManifest,
      config: { mediaType: MediaTypes.ociConfig, digest: digestOf(config), size: config.length },
      layers: [{ mediaType: MediaTypes.ociLayer, digest: digestOf(layer), size: layer.length }],
    }),
  );
  return { config, layer, manifest, digest: digestOf(manifest) };
}

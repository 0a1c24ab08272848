// Synthetic file-based catalogs that look like real ones (operatorhub / redhat-operator-index
// shapes), deterministic from a seed, from 1 to 60 MB. Used by tests and benchmarks.
//
// Layout: one directory per package holding `catalog.json` (a JSON stream; most packages) or
// `catalog.yaml` (multi-document YAML), a root `.indexignore` and an ignored README.md.
// Blobs: olm.package (base64 icon), olm.channel (replaces/skips/skipRange), olm.bundle
// (olm.package, olm.gvk, olm.csv.metadata, olm.bundle.object properties, relatedImages),
// olm.deprecations for some packages, and a custom schema.
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { dump } from 'js-yaml';
import { crdManifest } from './crd-manifest.js';

export interface GenerateOptions {
  seed: number;
  /** Target total size of the FBC files, 1 to 60 MB. */
  sizeMB: number;
}

export interface GeneratedFile {
  path: string;
  content: string;
}

export const CUSTOM_SCHEMA = 'io.catalogd.example.notes';

/** mulberry32: a small deterministic PRNG. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS =
  'operator cluster kubernetes database cache stream storage backup monitor metrics gateway mesh service secure identity vault queue broker search index pipeline deploy manage scale automate observe cloud native edge data lake event serverless registry certificate policy network ingress config tenant workload'.split(
    ' ',
  );
const GROUPS = [
  'example.com',
  'acme.io',
  'operators.coreos.com',
  'cache.example.org',
  'db.example.net',
  'monitoring.example.dev',
];

class Gen {
  readonly rnd: () => number;
  constructor(seed: number) {
    this.rnd = prng(seed);
  }
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.rnd() * (hi - lo + 1));
  }
  pick<T>(xs: readonly T[]): T {
    return xs[Math.floor(this.rnd() * xs.length)]!;
  }
  words(n: number): string {
    return Array.from({ length: n }, () => this.pick(WORDS)).join(' ');
  }
  hex(n: number): string {
    let s = '';
    while (s.length < n)
      s += Math.floor(this.rnd() * 0x100000000)
        .toString(16)
        .padStart(8, '0');
    return s.slice(0, n);
  }
  bytes(n: number): Buffer {
    const b = Buffer.alloc(n);
    for (let i = 0; i < n; i += 4)
      b.writeUInt32LE(Math.floor(this.rnd() * 0x100000000), Math.min(i, n - 4));
    return b;
  }
}

function crd(g: Gen, group: string, kind: string): Record<string, unknown> {
  const props: Record<string, unknown> = {};
  for (let i = 0, n = g.int(5, 30); i < n; i++)
    props[`${g.pick(WORDS)}${i}`] = {
      type: g.pick(['string', 'integer', 'boolean']),
      description: g.words(g.int(4, 16)),
    };
  return crdManifest({
    group,
    kind,
    scope: 'Namespaced',
    schema: { type: 'object', properties: { spec: { type: 'object', properties: props } } },
  });
}

function packageBlobs(g: Gen, pkg: string): Record<string, unknown>[] {
  const blobs: Record<string, unknown>[] = [];
  const channels = ['stable', 'alpha', 'beta', 'fast', 'candidate'].slice(0, g.int(1, 4));
  const nBundles = g.int(3, 30);
  const group = g.pick(GROUPS);
  const kinds = Array.from(
    { length: g.int(1, 4) },
    (_, i) => `${g.pick(WORDS).replace(/^./, (c) => c.toUpperCase())}${i}`,
  );
  blobs.push({
    schema: 'olm.package',
    name: pkg,
    defaultChannel: channels[0],
    icon: {
      base64data: g.bytes(g.int(1500, 12000)).toString('base64'),
      mediatype: g.pick(['image/png', 'image/svg+xml']),
    },
    description: g.words(g.int(20, 200)),
  });
  const bundles: string[] = [];
  for (let i = 0; i < nBundles; i++)
    bundles.push(`${pkg}.v${1 + Math.floor(i / 10)}.${i % 10}.${g.int(0, 3)}`);
  const uniqueBundles = [...new Set(bundles)];
  for (const ch of channels) {
    const members = uniqueBundles.filter(() => g.rnd() < 0.8);
    if (members.length === 0) members.push(uniqueBundles[0]!);
    const entries = members.map((name, i) => {
      const e: Record<string, unknown> = { name };
      if (i > 0) e.replaces = members[i - 1];
      if (i > 1 && g.rnd() < 0.3) e.skips = [members[i - 2]];
      if (g.rnd() < 0.2) e.skipRange = `>=0.1.0 <${name.split('.v')[1]}`;
      return e;
    });
    blobs.push({ schema: 'olm.channel', package: pkg, name: ch, entries });
  }
  for (const name of uniqueBundles) {
    const version = name.split('.v')[1]!;
    const properties: Record<string, unknown>[] = [
      { type: 'olm.package', value: { packageName: pkg, version } },
    ];
    for (const kind of kinds)
      properties.push({ type: 'olm.gvk', value: { group, kind, version: 'v1' } });
    properties.push({
      type: 'olm.csv.metadata',
      value: {
        annotations: {
          alm_examples: JSON.stringify(
            kinds.map((k) => ({
              apiVersion: `${group}/v1`,
              kind: k,
              metadata: { name: `example-${k.toLowerCase()}` },
              spec: {},
            })),
          ),
          capabilities: g.pick(['Basic Install', 'Seamless Upgrades', 'Full Lifecycle']),
          createdAt: '2024-01-02T03:04:05Z',
        },
        apiServiceDefinitions: {},
        crdDescriptions: {
          owned: kinds.map((k) => ({
            kind: k,
            name: `${k.toLowerCase()}s.${group}`,
            version: 'v1',
            displayName: k,
            description: g.words(g.int(5, 20)),
          })),
        },
        description: g.words(g.int(50, 400)),
        displayName: pkg.replace(/-/g, ' '),
        installModes: [
          { type: 'OwnNamespace', supported: true },
          { type: 'SingleNamespace', supported: true },
          { type: 'MultiNamespace', supported: false },
          { type: 'AllNamespaces', supported: true },
        ],
        keywords: g.words(g.int(2, 6)).split(' '),
        links: [{ name: 'Documentation', url: `https://${pkg}.example.com/docs` }],
        maintainers: [{ name: g.words(2), email: `team@${group}` }],
        maturity: g.pick(['alpha', 'beta', 'stable']),
        provider: { name: g.words(2) },
      },
    });
    if (g.rnd() < 0.3)
      properties.push({
        type: 'olm.bundle.object',
        value: {
          data: Buffer.from(JSON.stringify(crd(g, group, g.pick(kinds)))).toString('base64'),
        },
      });
    blobs.push({
      schema: 'olm.bundle',
      package: pkg,
      name,
      image: `registry.example.com/${pkg}/bundle@sha256:${g.hex(64)}`,
      properties,
      // In the order `opm render` prints them (sorted by image), so render output compares equal.
      relatedImages: [
        { name: '', image: `registry.example.com/${pkg}/bundle@sha256:${g.hex(64)}` },
        { name: 'operator', image: `registry.example.com/${pkg}/operator@sha256:${g.hex(64)}` },
      ],
    });
  }
  if (g.rnd() < 0.2) {
    blobs.push({
      schema: 'olm.deprecations',
      package: pkg,
      entries: [
        {
          reference: { schema: 'olm.bundle', name: uniqueBundles[0] },
          message: `${uniqueBundles[0]} is deprecated; upgrade.`,
        },
        {
          reference: { schema: 'olm.channel', name: channels[channels.length - 1] },
          message: 'this channel is no longer updated',
        },
      ],
    });
  }
  if (g.rnd() < 0.1)
    blobs.push({
      schema: CUSTOM_SCHEMA,
      package: pkg,
      name: `${pkg}-notes`,
      notes: g.words(g.int(10, 60)),
      rating: g.int(1, 5),
    });
  return blobs;
}

/** The files of a generated catalog, one package at a time (nothing else is held in memory). */
export function* generateCatalogFiles(opts: GenerateOptions): Generator<GeneratedFile> {
  if (!(opts.sizeMB >= 0.01 && opts.sizeMB <= 60))
    throw new Error(`sizeMB must be within 0.01..60, got ${opts.sizeMB}`);
  const target = opts.sizeMB * 1024 * 1024;
  const g = new Gen(opts.seed);
  yield { path: '.indexignore', content: '# not FBC\nREADME.md\n' };
  yield {
    path: 'README.md',
    content: '# Generated catalog\n\nThis file is ignored through .indexignore.\n',
  };
  let total = 0;
  for (let i = 0; total < target; i++) {
    const pkg = `${g.pick(WORDS)}-${g.pick(WORDS)}-${i.toString().padStart(4, '0')}`;
    const blobs = packageBlobs(g, pkg);
    // Every fifth package is written as multi-document YAML, the rest as JSON streams.
    const yaml = i % 5 === 1;
    const content = yaml
      ? blobs.map((b) => dump(b, { lineWidth: -1 })).join('---\n')
      : blobs.map((b) => JSON.stringify(b)).join('\n') + '\n';
    total += Buffer.byteLength(content);
    yield { path: `${pkg}/${yaml ? 'catalog.yaml' : 'catalog.json'}`, content };
  }
}

/** Writes a generated catalog under `out`; returns the number of files and FBC bytes. */
export async function generateCatalog(
  out: string,
  opts: GenerateOptions,
): Promise<{ files: number; bytes: number }> {
  let files = 0;
  let bytes = 0;
  for (const f of generateCatalogFiles(opts)) {
    const p = path.join(out, f.path);
    await mkdir(path.dirname(p), { recursive: true });
    await writeFile(p, f.content);
    files++;
    if (f.path.endsWith('.json') || f.path.endsWith('.yaml')) bytes += Buffer.byteLength(f.content);
  }
  return { files, bytes };
}

// A generated catalog for the e2e tests of the questions `kubectl catalog` answers (issue 24):
// many packages, each with several channels whose entries use replaces, skips and skipRange over
// release and pre-release versions, olm.deprecations for some packages, channels and bundles,
// and olm.csv.metadata (install modes, provider, keywords, minKubeVersion, arch/os labels) on
// most bundles, none on some packages. Seeded: the same seed gives the same blobs.
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';

export type Blob = Record<string, unknown> & { schema: string };

const INSTALL_MODES = ['OwnNamespace', 'SingleNamespace', 'MultiNamespace', 'AllNamespaces'];
const VERSIONS = [
  '0.9.0',
  '1.0.0-rc.1',
  '1.0.0',
  '1.0.1',
  '1.1.0-alpha.1',
  '1.1.0',
  '1.2.0',
  '2.0.0-rc.1',
  '2.0.0',
];
const RANGES = [
  '>=1.0.0 <1.1.0',
  '<1.2.0',
  '>=0.9.0 <2.0.0',
  '1.x',
  '>=1.0.0-0 <1.1.0',
  '<2.0.0-0',
];

export function answersCatalog(packages: number, seed: number, prefix = 'ans'): Blob[] {
  let state = seed;
  const rnd = () => (state = (state * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const pick = <T>(a: readonly T[]): T => a[Math.floor(rnd() * a.length)]!;
  const blobs: Blob[] = [];
  for (let p = 0; p < packages; p++) {
    const pkg = `${prefix}-${p}`;
    const count = 3 + Math.floor(rnd() * (VERSIONS.length - 2));
    const versions = VERSIONS.slice(VERSIONS.length - count);
    const names = versions.map((v) => `${pkg}.v${v}`);
    const withCsv = p % 5 !== 4;
    blobs.push({
      schema: 'olm.package',
      name: pkg,
      defaultChannel: 'stable',
      description: `Generated package ${p}${p % 3 === 0 ? ' for databases' : ''}.`,
    });
    const channels = ['stable', 'fast', ...(rnd() < 0.5 ? ['candidate'] : [])];
    for (const ch of channels) {
      const members = ch === 'stable' ? names.filter((_, i) => !versions[i]!.includes('-')) : names;
      blobs.push({
        schema: 'olm.channel',
        package: pkg,
        name: ch,
        entries: members.map((name, i) => ({
          name,
          ...(i > 0 && rnd() < 0.8 && { replaces: members[i - 1] }),
          ...(i > 1 && rnd() < 0.3 && { skips: [members[i - 2]] }),
          ...(i > 0 && rnd() < 0.4 && { skipRange: pick(RANGES) }),
        })),
      });
    }
    for (const [i, v] of versions.entries()) {
      const modes = INSTALL_MODES.map((type) => ({ type, supported: rnd() < 0.6 }));
      blobs.push({
        schema: 'olm.bundle',
        package: pkg,
        name: names[i]!,
        image: `example.com/${pkg}-bundle:v${v}`,
        properties: [
          { type: 'olm.package', value: { packageName: pkg, version: v } },
          ...(withCsv
            ? [
                {
                  type: 'olm.csv.metadata',
                  value: {
                    displayName: `Answers ${p}`,
                    description: `Operator ${p} of the generated catalog.`,
                    installModes: modes,
                    provider: { name: p % 2 === 0 ? 'Even Corp' : 'Odd Inc.' },
                    keywords: p % 3 === 0 ? ['database', 'sql'] : ['tools'],
                    minKubeVersion: `1.${25 + (p % 8)}.0`,
                    annotations: {
                      categories: p % 3 === 0 ? 'Database' : 'Developer Tools',
                      capabilities: p % 2 === 0 ? 'Full Lifecycle' : 'Basic Install',
                    },
                    labels: {
                      'operatorframework.io/arch.amd64': 'supported',
                      ...(p % 4 === 0 && { 'operatorframework.io/arch.arm64': 'supported' }),
                      'operatorframework.io/os.linux': 'supported',
                    },
                  },
                },
              ]
            : []),
          ...(p % 6 === 1 ? [{ type: 'olm.maxOpenShiftVersion', value: '4.16' }] : []),
        ],
      });
    }
    if (p % 3 === 1) {
      blobs.push({
        schema: 'olm.deprecations',
        package: pkg,
        entries: [
          ...(p % 9 === 1
            ? [{ reference: { schema: 'olm.package' }, message: `${pkg} is end of life.` }]
            : []),
          { reference: { schema: 'olm.channel', name: 'fast' }, message: 'fast is retired.' },
          {
            reference: { schema: 'olm.bundle', name: names[0] },
            message: `${names[0]} has a CVE.`,
          },
        ],
      });
    }
  }
  return blobs;
}

/** Writes the blobs as one JSON stream per package under dir. */
export async function writeAnswersCatalog(dir: string, blobs: readonly Blob[]): Promise<void> {
  const byPackage = new Map<string, Blob[]>();
  for (const b of blobs) {
    const pkg = String(b.package ?? b.name);
    byPackage.set(pkg, [...(byPackage.get(pkg) ?? []), b]);
  }
  for (const [pkg, list] of byPackage) {
    await mkdir(path.join(dir, pkg), { recursive: true });
    await writeFile(
      path.join(dir, pkg, 'catalog.json'),
      list.map((b) => JSON.stringify(b)).join('\n'),
    );
  }
}

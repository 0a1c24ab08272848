import { expect } from 'chai';
import { packageDetails } from './details.js';
import type { BundleBlob, ChannelBlob, DeprecationsBlob, PackageBlob } from './fbc-types.js';

const pkg: PackageBlob = {
  schema: 'olm.package',
  name: 'p',
  defaultChannel: 'stable',
  description: 'Pkg.',
};
const channels: ChannelBlob[] = [
  { schema: 'olm.channel', package: 'p', name: 'stable', entries: [{ name: 'p.v1' }] },
  { schema: 'olm.channel', package: 'p', name: 'alpha', entries: [{ name: 'p.v1' }] },
];
const head = (csv?: Record<string, unknown>): BundleBlob => ({
  schema: 'olm.bundle',
  package: 'p',
  name: 'p.v1',
  image: 'img',
  properties: [
    { type: 'olm.package', value: { packageName: 'p', version: '1.0.0' } },
    { type: 'olm.gvk', value: { group: 'g.io', version: 'v1', kind: 'K' } },
    ...(csv ? [{ type: 'olm.csv.metadata', value: csv }] : []),
  ],
});
const deprecations: DeprecationsBlob = {
  schema: 'olm.deprecations',
  package: 'p',
  entries: [
    { reference: { schema: 'olm.package' }, message: 'eol' },
    { reference: { schema: 'olm.channel', name: 'stable' }, message: 'use alpha' },
    { reference: { schema: 'olm.bundle', name: 'p.v1' }, message: 'CVE' },
  ],
};

describe('answers/details: packageDetails', () => {
  it('the head CSV: infrastructure features from both annotation forms, provider, links, maintainers', () => {
    const d = packageDetails('c', pkg, channels, [
      head({
        description: 'Long.',
        provider: { name: 'Acme', url: 'https://acme.example' },
        links: [{ name: 'Docs', url: 'https://docs' }, 'bad'],
        maintainers: [{ name: 'Ann', email: 'a@x' }],
        maturity: 'alpha',
        annotations: {
          'features.operators.openshift.io/fips-compliant': 'true',
          'features.operators.openshift.io/tls-profiles': 'false',
          'operators.openshift.io/infrastructure-features': '["Disconnected", "FIPS-compliant"]',
        },
      }),
    ]);
    expect(d).to.deep.include({
      description: 'Long.',
      provider: { name: 'Acme', url: 'https://acme.example' },
      links: [{ name: 'Docs', url: 'https://docs' }],
      maintainers: [{ name: 'Ann', email: 'a@x' }],
      maturity: 'alpha',
      infrastructureFeatures: ['disconnected', 'fips-compliant'],
      providedAPIs: ['g.io/v1/K'],
      head: { name: 'p.v1', version: '1.0.0' },
      archs: ['amd64'],
      csvMetadata: true,
    });
    expect(d.channels.map((c) => c.name)).to.deep.equal(['alpha', 'stable']);
  });

  it('deprecations of the package, its default channel and its head; no CSV metadata', () => {
    const d = packageDetails('c', pkg, channels, [head()], deprecations);
    expect(d.deprecated).to.deep.equal({ package: 'eol', channel: 'use alpha', bundle: 'CVE' });
    expect(d.channels.find((c) => c.name === 'stable')?.deprecated).to.equal('use alpha');
    expect(d).to.deep.include({
      csvMetadata: false,
      description: 'Pkg.',
      archs: [],
      installModes: [],
    });
    expect(packageDetails('c', pkg, channels, [head()])).not.to.have.property('deprecated');
  });
});

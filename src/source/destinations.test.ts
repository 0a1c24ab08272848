// Where a registry may send us, as a table: a registry (its host, and the address it answered
// from when known) and a redirect target or token realm → allowed or refused, and why. Names are
// resolved by a fake resolver: the table is pure logic.
import { expect } from 'chai';
import { Destinations, literalClass, type AddressClass, type Resolver } from './destinations.js';

const names: Record<string, string[]> = {
  'quay.example': ['198.51.100.1'],
  'cdn.example': ['203.0.113.7'],
  'internal.example': ['10.1.2.3'],
  'metadata.example': ['169.254.169.254'],
  'rebind.example': ['203.0.113.8', '127.0.0.1'],
  'api.cluster.example': ['10.96.0.1'],
  'kubernetes.default.svc': ['10.96.0.1'],
  'v6only.example': ['::1'],
  localhost: ['127.0.0.1', '::1'],
};
const resolve: Resolver = async (host) => {
  const addrs = names[host];
  if (!addrs)
    throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
  return addrs.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
};

const destinations = new Destinations({
  forbiddenHosts: ['10.96.0.1', 'api.cluster.example', ''],
  resolve,
});

type Row = [registry: string, answeredFrom: string | undefined, target: string, verdict: string];

// verdict: "allowed", or the refusal: "scheme", "downgrade", "class".
const table: Row[] = [
  // A registry on the internet: only the internet.
  ['https://quay.example', '198.51.100.1', 'https://cdn.example/blob?sig=1', 'allowed'],
  ['https://quay.example', '198.51.100.1', 'https://93.184.216.34/x', 'allowed'],
  ['https://quay.example', '198.51.100.1', 'https://127.0.0.1/x', 'class'],
  ['https://quay.example', '198.51.100.1', 'https://127.1.2.3:8443/x', 'class'],
  ['https://quay.example', '198.51.100.1', 'https://2130706433/x', 'class'], // 127.0.0.1
  ['https://quay.example', '198.51.100.1', 'https://localhost/x', 'class'],
  ['https://quay.example', '198.51.100.1', 'https://a.localhost/x', 'class'],
  ['https://quay.example', '198.51.100.1', 'https://[::1]/x', 'class'],
  ['https://quay.example', '198.51.100.1', 'https://[::ffff:127.0.0.1]/x', 'class'],
  ['https://quay.example', '198.51.100.1', 'https://[64:ff9b::7f00:1]/x', 'class'],
  ['https://quay.example', '198.51.100.1', 'https://169.254.169.254/latest/meta-data', 'class'],
  ['https://quay.example', '198.51.100.1', 'https://0.0.0.0:10250/pods', 'class'],
  ['https://quay.example', '198.51.100.1', 'https://[::]/x', 'class'],
  ['https://quay.example', '198.51.100.1', 'https://10.1.2.3/x', 'class'],
  ['https://quay.example', '198.51.100.1', 'https://192.168.1.1/x', 'class'],
  ['https://quay.example', '198.51.100.1', 'https://172.16.0.1/x', 'class'],
  ['https://quay.example', '198.51.100.1', 'https://172.32.0.1/x', 'allowed'],
  ['https://quay.example', '198.51.100.1', 'https://100.64.0.1/x', 'class'],
  ['https://quay.example', '198.51.100.1', 'https://[fd00::1]/x', 'class'],
  ['https://quay.example', '198.51.100.1', 'https://10.96.0.1/api', 'class'],
  ['https://quay.example', '198.51.100.1', 'https://internal.example/x', 'class'],
  ['https://quay.example', '198.51.100.1', 'https://metadata.example/x', 'class'],
  ['https://quay.example', '198.51.100.1', 'https://rebind.example/x', 'class'],
  ['https://quay.example', '198.51.100.1', 'https://v6only.example/x', 'class'],
  ['https://quay.example', '198.51.100.1', 'https://kubernetes.default.svc/api', 'class'],
  ['https://quay.example', '198.51.100.1', 'https://api.cluster.example/api', 'class'],
  ['https://quay.example', '198.51.100.1', 'https://nowhere.example/x', 'class'],
  // Only http(s), and never from https to http.
  ['https://quay.example', '198.51.100.1', 'http://cdn.example/x', 'downgrade'],
  ['https://quay.example', '198.51.100.1', 'ftp://cdn.example/x', 'scheme'],
  ['https://quay.example', '198.51.100.1', 'file:///etc/passwd', 'scheme'],
  ['http://quay.example', '198.51.100.1', 'http://cdn.example/x', 'allowed'],
  // A local registry keeps working: loopback, and anything less private than loopback.
  ['http://127.0.0.1:5000', '127.0.0.1', 'http://127.0.0.1:5001/token', 'allowed'],
  ['http://127.0.0.1:5000', '127.0.0.1', 'http://localhost:5001/x', 'allowed'],
  ['http://127.0.0.1:5000', '::ffff:127.0.0.1', 'http://[::1]:5001/x', 'allowed'],
  ['http://127.0.0.1:5000', '127.0.0.1', 'http://10.1.2.3/x', 'allowed'],
  ['http://127.0.0.1:5000', '127.0.0.1', 'https://cdn.example/x', 'allowed'],
  ['http://127.0.0.1:5000', '127.0.0.1', 'http://0.0.0.0:5001/x', 'class'],
  ['http://127.0.0.1:5000', '127.0.0.1', 'http://10.96.0.1/api', 'class'],
  ['http://127.0.0.1:5000', '127.0.0.1', 'http://api.cluster.example/api', 'class'],
  // A registry in the cluster: the cluster's network, not the node's or the apiserver.
  ['http://10.1.2.3:5000', '10.1.2.3', 'http://10.5.5.5/x', 'allowed'],
  ['http://10.1.2.3:5000', '10.1.2.3', 'http://internal.example/x', 'allowed'],
  ['http://10.1.2.3:5000', '10.1.2.3', 'http://169.254.169.254/x', 'class'],
  ['http://10.1.2.3:5000', '10.1.2.3', 'http://127.0.0.1/x', 'class'],
  ['http://10.1.2.3:5000', '10.1.2.3', 'http://10.96.0.1/x', 'class'],
  // A registry on the apiserver's own address may send us anywhere.
  ['https://10.96.0.1:5000', '10.96.0.1', 'https://127.0.0.1/x', 'allowed'],
  // The address that answered decides, not what the registry's name resolves to now.
  ['https://quay.example', '127.0.0.1', 'http://127.0.0.1:5001/x', 'downgrade'],
  ['http://quay.example', '127.0.0.1', 'http://127.0.0.1:5001/x', 'allowed'],
  ['http://localhost:5000', '203.0.113.9', 'http://127.0.0.1:5001/x', 'class'],
  // Without an answering address: the registry's host, at its least private address.
  ['http://localhost:5000', undefined, 'http://127.0.0.1:5001/x', 'allowed'],
  ['http://127.0.0.1:5000', undefined, 'http://127.0.0.1:5001/x', 'allowed'],
  ['http://rebind.example', undefined, 'http://127.0.0.1:5001/x', 'class'],
  ['http://nowhere.example', undefined, 'http://127.0.0.1:5001/x', 'class'],
  ['http://nowhere.example', undefined, 'http://cdn.example/x', 'allowed'],
];

describe('source/destinations: where a registry may send us', () => {
  for (const [registry, answeredFrom, target, verdict] of table) {
    it(`${registry} (from ${answeredFrom ?? 'its name'}) → ${target}: ${verdict}`, async () => {
      const v = await destinations.judge({
        registry: new URL(registry),
        registryAddress: answeredFrom,
        from: new URL(registry),
        to: new URL(target),
      });
      expect(v.allowed ? 'allowed' : v.why).to.equal(verdict);
    });
  }

  it('connects to the address a name was judged by', async () => {
    const v = await destinations.judge({
      registry: new URL('https://quay.example'),
      registryAddress: '198.51.100.1',
      from: new URL('https://quay.example'),
      to: new URL('https://cdn.example/blob'),
    });
    expect(v).to.deep.equal({ allowed: true, pin: { address: '203.0.113.7', family: 4 } });
    const literal = await destinations.judge({
      registry: new URL('https://quay.example'),
      registryAddress: '198.51.100.1',
      from: new URL('https://quay.example'),
      to: new URL('https://203.0.113.7/blob'),
    });
    expect(literal).to.deep.equal({ allowed: true });
  });

  it('classifies addresses at the edges of each range', () => {
    const cases: [string, AddressClass | undefined][] = [
      ['0.255.255.255', 'unspecified'],
      ['1.0.0.0', 'public'],
      ['9.255.255.255', 'public'],
      ['10.0.0.0', 'private'],
      ['11.0.0.0', 'public'],
      ['100.63.255.255', 'public'],
      ['100.64.0.0', 'private'],
      ['100.127.255.255', 'private'],
      ['100.128.0.0', 'public'],
      ['126.255.255.255', 'public'],
      ['127.255.255.255', 'loopback'],
      ['128.0.0.0', 'public'],
      ['169.253.255.255', 'public'],
      ['169.254.0.0', 'link-local'],
      ['169.255.0.0', 'public'],
      ['172.15.255.255', 'public'],
      ['172.31.255.255', 'private'],
      ['192.167.255.255', 'public'],
      ['192.168.255.255', 'private'],
      ['192.169.0.0', 'public'],
      ['::', 'unspecified'],
      ['::1', 'loopback'],
      ['::2', 'public'],
      ['::ffff:10.0.0.1', 'private'],
      ['::ffff:a00:1', 'private'],
      ['fbff::1', 'public'],
      ['fc00::1', 'private'],
      ['fdff::1', 'private'],
      ['fe7f::1', 'public'],
      ['fe80::1', 'link-local'],
      ['febf::1', 'link-local'],
      ['fec0::1', 'private'],
      ['[fe80::1%eth0]', 'link-local'],
      ['2001:db8::1', 'public'],
      ['LOCALHOST.', 'loopback'],
      ['registry.example', undefined],
    ];
    for (const [host, cls] of cases) expect(literalClass(host), host).to.equal(cls);
  });
});

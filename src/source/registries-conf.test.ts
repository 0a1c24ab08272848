import { expect } from 'chai';
import { isRetryable } from './errors.js';
import { parseReference } from './reference.js';
import { emptyRegistriesConfig, endpointsFor, parseRegistriesConfig } from './registries-conf.js';

const conf = parseRegistriesConfig(`
unqualified-search-registries = ["docker.io"]

[[registry]]
prefix = "quay.io/operatorhubio"
location = "internal.example:5000/ohio"
[[registry.mirror]]
location = "mirror.example/quay-ohio"
insecure = true
[[registry.mirror]]
location = "mirror2.example/q"

[[registry]]
location = "quay.io"
insecure = true

[[registry]]
prefix = "digestonly.example"
location = "digestonly.example"
mirror-by-digest-only = true
[[registry.mirror]]
location = "m.example"

[[registry]]
location = "blocked.example"
blocked = true
`);

describe('source/registries-conf', () => {
  it('uses the longest matching prefix, mirrors first, rewriting the location', () => {
    expect(
      endpointsFor(conf, parseReference('quay.io/operatorhubio/catalog:latest')),
    ).to.deep.equal([
      { scheme: 'http', host: 'mirror.example', repository: 'quay-ohio/catalog', mirror: true },
      { scheme: 'https', host: 'mirror2.example', repository: 'q/catalog', mirror: true },
      { scheme: 'https', host: 'internal.example:5000', repository: 'ohio/catalog', mirror: false },
    ]);
    expect(endpointsFor(conf, parseReference('quay.io/other/x:1'))).to.deep.equal([
      { scheme: 'http', host: 'quay.io', repository: 'other/x', mirror: false },
    ]);
  });

  it('matches prefixes at path boundaries only', () => {
    expect(endpointsFor(conf, parseReference('quay.io/operatorhubiox/c:1'))[0]!.host).to.equal(
      'quay.io',
    );
  });

  it('defaults: https, plain http for loopback, docker.io API host', () => {
    expect(endpointsFor(emptyRegistriesConfig, parseReference('busybox'))).to.deep.equal([
      {
        scheme: 'https',
        host: 'registry-1.docker.io',
        repository: 'library/busybox',
        mirror: false,
      },
    ]);
    expect(
      endpointsFor(emptyRegistriesConfig, parseReference('127.0.0.1:5000/a:1'))[0]!.scheme,
    ).to.equal('http');
    expect(
      endpointsFor(emptyRegistriesConfig, parseReference('localhost:5000/a:1'))[0]!.scheme,
    ).to.equal('http');
  });

  it('honours mirror-by-digest-only', () => {
    expect(endpointsFor(conf, parseReference('digestonly.example/a:1'))).to.have.length(1);
    const d = 'sha256:' + '0'.repeat(64);
    expect(endpointsFor(conf, parseReference(`digestonly.example/a@${d}`))).to.have.length(2);
  });

  it('refuses blocked registries and bad files with terminal errors', () => {
    for (const f of [
      () => endpointsFor(conf, parseReference('blocked.example/a:1')),
      () => parseRegistriesConfig('[[registry]]\ninsecure = true\n'),
      () => parseRegistriesConfig('[[registry'),
    ]) {
      expect(f).to.throw();
      try {
        f();
      } catch (e) {
        expect(isRetryable(e)).to.equal(false);
      }
    }
  });
});

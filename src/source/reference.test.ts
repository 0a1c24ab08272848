import { expect } from 'chai';
import { isRetryable } from './errors.js';
import { formatReference, isLoopbackHost, parseReference } from './reference.js';

const d = 'sha256:' + 'a'.repeat(64);

describe('source/reference', () => {
  it('normalizes Docker Hub names', () => {
    expect(parseReference('busybox')).to.deep.equal({
      registry: 'docker.io',
      repository: 'library/busybox',
      tag: 'latest',
    });
    expect(formatReference(parseReference('index.docker.io/foo/bar:1'))).to.equal(
      'docker.io/foo/bar:1',
    );
  });

  it('parses registry with port, tag and digest', () => {
    expect(parseReference('127.0.0.1:5000/a/b:v1')).to.deep.equal({
      registry: '127.0.0.1:5000',
      repository: 'a/b',
      tag: 'v1',
    });
    expect(parseReference(`quay.io/x/y:v1@${d}`)).to.deep.equal({
      registry: 'quay.io',
      repository: 'x/y',
      tag: 'v1',
      digest: d,
    });
    expect(formatReference(parseReference(`quay.io/x/y:v1@${d}`))).to.equal(`quay.io/x/y@${d}`);
    expect(parseReference('localhost/cat').registry).to.equal('localhost');
  });

  it('rejects bad references with a terminal error', () => {
    for (const bad of ['', 'UPPER/case', 'quay.io/x@sha256:abc', 'quay.io/x:bad tag', 'a//b']) {
      let err: unknown;
      try {
        parseReference(bad);
      } catch (e) {
        err = e;
      }
      expect(err, bad).to.be.instanceOf(Error);
      expect(isRetryable(err), bad).to.equal(false);
    }
  });

  it('knows loopback hosts', () => {
    for (const h of ['localhost:5000', '127.0.0.1:1', '127.8.9.10', '[::1]:5000', 'localhost'])
      expect(isLoopbackHost(h), h).to.equal(true);
    for (const h of ['quay.io', '10.0.0.1:5000', 'localhost.example.com', '[fe80::1]:1'])
      expect(isLoopbackHost(h), h).to.equal(false);
  });
});

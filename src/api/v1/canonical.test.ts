import { expect } from 'chai';
import { createHash } from 'node:crypto';
import stringify from 'fast-json-stable-stringify';
import { CatalogHasher, blobHash, canonicalize } from './canonical.js';

describe('fbc/canonical: canonical blob form and hashes', () => {
  it('sorts keys and drops insignificant whitespace', () => {
    expect(canonicalize({ b: 1, a: { d: [1, { f: null, e: 'x' }], c: true } })).to.equal(
      '{"a":{"c":true,"d":[1,{"e":"x","f":null}]},"b":1}',
    );
  });

  it('prints numbers as float64 values (1.0 → 1, big integers rounded, -0 → 0)', () => {
    expect(canonicalize(JSON.parse('[1.0, 1e3, 12345678901234567890, -0.0, 1e21, 1e-7]'))).to.equal(
      '[1,1000,12345678901234567000,0,1e+21,1e-7]',
    );
  });

  it('matches fast-json-stable-stringify on ordinary values', () => {
    const v = { z: [1, 'two', { '10': 1, '9': 2, é: 3, e: 4 }], a: '\u2028"\\', m: {} };
    expect(canonicalize(v)).to.equal(stringify(v));
  });

  it('handles nesting beyond the call stack', () => {
    let v: unknown = 1;
    for (let i = 0; i < 20000; i++) v = [v];
    expect(canonicalize(v)).to.have.length(40001);
  });

  it('hashes the canonical form', () => {
    expect(blobHash('{}')).to.equal(
      'sha256:44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a',
    );
  });

  it('catalog contentHash is independent of blob order', () => {
    const a = new CatalogHasher();
    const b = new CatalogHasher();
    for (const h of ['sha256:1', 'sha256:2', 'sha256:3']) a.add(h);
    for (const h of ['sha256:3', 'sha256:1', 'sha256:2']) b.add(h);
    expect(a.digest()).to.equal(b.digest());
    expect(a.count).to.equal(3);
    const c = new CatalogHasher();
    c.add('sha256:1');
    expect(c.digest()).not.to.equal(a.digest());
  });

  it('hashes a long string in slices to the sha256 of its UTF-8 bytes, never splitting a surrogate pair', () => {
    for (const s of [
      `${'a'.repeat((1 << 20) - 1)}\u{1F600}b`, // a pair across the first slice boundary
      `${'é\u{1F600}'.repeat(1 << 19)}x`,
    ]) {
      const whole = createHash('sha256').update(Buffer.from(s, 'utf8')).digest('hex');
      expect(blobHash(s)).to.equal(`sha256:${whole}`);
    }
  });
});

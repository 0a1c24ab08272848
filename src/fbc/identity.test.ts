import { expect } from 'chai';
import { prng } from '../../test/support/fbcgen.js';
import {
  identityKey,
  isDNS1123Subdomain,
  isValidLabelValue,
  labelValue,
  objectName,
} from './identity.js';
import type { BlobIdentity } from './identity.js';

const ALPHABET = [
  'a',
  'b',
  'z',
  '0',
  '9',
  '-',
  '.',
  '_',
  'A',
  'Z',
  ' ',
  '/',
  ':',
  'é',
  'ß',
  '日',
  '😀',
  '\u0000',
  '--',
  '..',
];

function randomString(rnd: () => number, maxLen: number): string {
  const len = Math.floor(rnd() ** 3 * maxLen);
  let s = '';
  for (let i = 0; i < len; i++) s += ALPHABET[Math.floor(rnd() * ALPHABET.length)]!;
  return s;
}

function randomIdentity(rnd: () => number): BlobIdentity {
  const id: BlobIdentity = {
    catalog: ['operatorhubio', 'redhat-operators', 'c', 'x'.repeat(253)][Math.floor(rnd() * 4)]!,
    schema: [
      'olm.package',
      'olm.channel',
      'olm.bundle',
      'olm.deprecations',
      'io.example.Custom_Schema',
      randomString(rnd, 30),
    ][Math.floor(rnd() * 6)]!,
  };
  if (rnd() < 0.9) id.package = randomString(rnd, rnd() < 0.05 ? 1000 : 40);
  if (rnd() < 0.9) id.name = randomString(rnd, rnd() < 0.05 ? 1000 : 60);
  if (rnd() < 0.05) id.disambiguator = randomString(rnd, 64);
  return id;
}

/** Pairs that a naive `<catalog>-<package>-<name>` would merge. */
function adversarial(): BlobIdentity[] {
  const c = 'cat';
  const s = 'olm.bundle';
  const long = 'x'.repeat(1000);
  return [
    { catalog: c, schema: s, package: 'a-b', name: 'c' },
    { catalog: c, schema: s, package: 'a', name: 'b-c' },
    { catalog: c, schema: s, package: 'a.b', name: 'c' },
    { catalog: c, schema: s, package: 'a', name: 'b.c' },
    { catalog: c, schema: s, package: 'Foo', name: 'bar' },
    { catalog: c, schema: s, package: 'foo', name: 'bar' },
    { catalog: c, schema: s, package: 'foo_bar', name: 'x' },
    { catalog: c, schema: s, package: 'foo-bar', name: 'x' },
    { catalog: c, schema: s, package: 'foo bar', name: 'x' },
    { catalog: c, schema: s, package: 'foo', name: '' },
    { catalog: c, schema: s, package: 'foo' },
    { catalog: c, schema: s, name: 'foo' },
    { catalog: 'cat-olm', schema: 'bundle', package: 'foo' },
    { catalog: c, schema: 'olm.package', package: 'foo' },
    { catalog: c, schema: s, package: `${long}a`, name: 'n' },
    { catalog: c, schema: s, package: `${long}b`, name: 'n' },
    { catalog: c, schema: s, package: 'p', name: `${long}1` },
    { catalog: c, schema: s, package: 'p', name: `${long}2` },
    { catalog: c, schema: s, package: '日本', name: 'x' },
    { catalog: c, schema: s, package: '中文', name: 'x' },
    { catalog: c, schema: s, package: '...', name: '---' },
    { catalog: c, schema: s, package: '', name: '' },
    { catalog: c, schema: 'io.x', disambiguator: 'aa' },
    { catalog: c, schema: 'io.x', disambiguator: 'ab' },
    { catalog: 'a', schema: s, package: 'b-c' },
    { catalog: 'a-b', schema: s, package: 'c' },
  ];
}

describe('fbc/identity: object names and label values', () => {
  it('names are readable where the identity allows', () => {
    expect(
      objectName({
        catalog: 'operatorhubio',
        schema: 'olm.bundle',
        package: 'etcd',
        name: 'etcdoperator.v0.9.4',
      }),
    ).to.match(/^operatorhubio-bundle-etcd-etcdoperator\.v0\.9\.4-[0-9a-f]{16}$/);
    expect(objectName({ catalog: 'c', schema: 'olm.package', name: 'Foo_Bar' })).to.match(
      /^c-package-foo-bar-[0-9a-f]{16}$/,
    );
  });

  it('names depend on the identity only (same identity, same name)', () => {
    const id = { catalog: 'c', schema: 'olm.channel', package: 'p', name: 'stable' };
    expect(objectName({ ...id })).to.equal(objectName(id));
  });

  it('identityKey is unambiguous for absent and empty fields', () => {
    expect(identityKey({ catalog: 'c', schema: 's', package: 'a' })).not.to.equal(
      identityKey({ catalog: 'c', schema: 's', name: 'a' }),
    );
  });

  it('adversarial identities get valid and distinct names', () => {
    const ids = adversarial();
    const names = ids.map(objectName);
    for (const n of names) expect(isDNS1123Subdomain(n), n).to.equal(true);
    expect(new Set(names).size).to.equal(ids.length);
  });

  it('property: 10^5 random and adversarial identities give valid, unique names and valid label values', function () {
    // 10^5 names: a few seconds on an idle machine, over 20 s on a loaded one (a bound, not a timing check).
    this.timeout(120_000);
    const rnd = prng(20261122);
    const names = new Map<string, string>();
    const keys = new Set<string>();
    const ids = [...adversarial()];
    for (let i = 0; i < 100000; i++) ids.push(randomIdentity(rnd));
    for (const id of ids) {
      const key = identityKey(id);
      keys.add(key);
      const name = objectName(id);
      if (!isDNS1123Subdomain(name)) expect.fail(`invalid name ${JSON.stringify(name)} for ${key}`);
      const other = names.get(name);
      if (other !== undefined && other !== key) expect.fail(`${key} and ${other} share ${name}`);
      names.set(name, key);
      for (const v of [id.catalog, id.schema, id.package ?? '', id.name ?? '']) {
        const lv = labelValue(v);
        if (!isValidLabelValue(lv))
          expect.fail(`invalid label value ${JSON.stringify(lv)} for ${JSON.stringify(v)}`);
      }
    }
    expect(names.size).to.equal(keys.size);
    expect(keys.size).to.be.greaterThan(80000);
  });

  it('label values: valid values are kept, others get a readable prefix and a hash', () => {
    expect(labelValue('etcd')).to.equal('etcd');
    expect(labelValue('Foo_Bar.v1-2')).to.equal('Foo_Bar.v1-2');
    expect(labelValue('')).to.equal('');
    expect(labelValue('x'.repeat(63))).to.equal('x'.repeat(63));
    const long = labelValue('x'.repeat(64));
    expect(long).to.match(/^x{46}-[0-9a-f]{16}$/);
    expect(labelValue('my operator/v1')).to.match(/^my_operator_v1-[0-9a-f]{16}$/);
    expect(labelValue('-leading')).to.match(/^leading-[0-9a-f]{16}$/);
    expect(labelValue('日本')).to.match(/^[0-9a-f]{16}$/);
    expect(labelValue('a-b/')).not.to.equal(labelValue('a-b:'));
  });

  it('validators agree with Kubernetes rules', () => {
    expect(isDNS1123Subdomain('a.b-c')).to.equal(true);
    expect(isDNS1123Subdomain('a..b')).to.equal(false);
    expect(isDNS1123Subdomain('-a')).to.equal(false);
    expect(isDNS1123Subdomain('A')).to.equal(false);
    expect(isDNS1123Subdomain('a'.repeat(254))).to.equal(false);
    expect(isValidLabelValue('a_b')).to.equal(true);
    expect(isValidLabelValue('_a')).to.equal(false);
    expect(isValidLabelValue('a'.repeat(64))).to.equal(false);
  });
});

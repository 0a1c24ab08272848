import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { CatalogHasher } from './canonical.js';
import { IdentityRegistry, readCatalog } from './catalog.js';
import type { Blob } from './catalog.js';
import { FbcError } from './errors.js';

export const FIXTURES = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../../test/fixtures/fbc',
);

async function load(name: string): Promise<Blob[]> {
  const out: Blob[] = [];
  for await (const b of readCatalog(path.join(FIXTURES, name), { catalog: 'test' })) out.push(b);
  return out;
}

async function loadError(name: string): Promise<FbcError> {
  try {
    await load(name);
  } catch (err) {
    if (err instanceof FbcError) return err;
    throw err;
  }
  throw new Error(`${name}: expected an FbcError`);
}

const pos = { file: 'f', line: 1, column: 1, offset: 0 };

/** The fixtures that parse, and what they hold (schema/package/name per blob, in order). */
export const GOOD_FIXTURES: Record<string, string[]> = {
  'json-stream': [
    'olm.package//etcd',
    'olm.channel/etcd/alpha',
    'olm.bundle/etcd/etcd.v0.9.0',
    'olm.bundle/etcd/etcd.v0.9.2',
  ],
  'multi-doc-yaml': ['olm.package//etcd', 'olm.channel/etcd/alpha', 'olm.bundle/etcd/etcd.v0.9.0'],
  bom: ['olm.package//bom-yaml', 'olm.package//bom-json'],
  yaml11: ['io.example.yaml11//scalars'],
  'deep-json': ['io.example.deep//deep'],
  'big-blob': ['olm.bundle/big/big.v1.0.0'],
  indexignore: ['olm.package//etcd', 'olm.channel/etcd/alpha', 'io.example.note//not-ignored-here'],
  'custom-schemas': [
    'io.example.note/etcd/n1',
    'io.example.note/etcd/n1',
    'io.example.global//',
    'io.example.global//',
    'io.example.upper/etcd/case-insensitive',
  ],
};

/** The fixtures that fail, with the exact error. */
export const BAD_FIXTURES: Record<string, string | RegExp> = {
  'alias-bomb':
    /^bomb\.yaml:\d+:\d+: invalid YAML: (document contains excessive aliasing|aliases expand to more than 1000000 nodes)$/,
  'stray-readme': 'README.md:1:1: not an object: a blob must be a JSON object, got string',
  'error-bad-yaml': /^etcd\/catalog\.yaml:6:\d+: invalid YAML: /,
  'error-missing-schema':
    'etcd/catalog.json:2:1: missing schema: a blob must have a non-empty "schema" string',
  'error-empty-doc': 'etcd/catalog.yaml:4:1: missing schema: the document is empty',
  'error-duplicate-meta-keys': 'etcd/catalog.yaml:1:1: duplicate keys for key "name": [Name name]',
  'error-meta-not-string':
    'etcd/catalog.yaml:1:1: expected value for key "name" to be a string, got number',
  'error-not-object':
    'etcd/catalog.json:3:1: not an object: a blob must be a JSON object, got array',
  'error-invalid-json': 'etcd/catalog.json:3:34: invalid JSON: unexpected "}", expected a value',
  'error-invalid-utf8': 'etcd/catalog.yaml:3:17: invalid UTF-8',
  'error-duplicate-bundle':
    'etcd2/catalog.json:1:1: duplicate schema="olm.bundle" package="etcd" name="etcd.v0.9.0": also defined at etcd/catalog.json:1:1',
  'error-exact-duplicate':
    'b.yaml:1:1: duplicate blob (schema="io.example.note" package="etcd" name="n1"): identical to the blob at a.json:1:1',
  'error-inf': 'x.yaml:2:8: invalid YAML: json: unsupported value: +Inf',
  'error-bad-separator': 'x.yaml:3:1: invalid YAML document separator: !tag',
};

describe('fbc/catalog: fixtures of odd input', () => {
  for (const [name, want] of Object.entries(GOOD_FIXTURES)) {
    it(`${name}: parses to the documented blobs`, async () => {
      const blobs = await load(name);
      expect(blobs.map((b) => `${b.schema}/${b.package ?? ''}/${b.name ?? ''}`)).to.deep.equal(
        want,
      );
    });
  }
  for (const [name, want] of Object.entries(BAD_FIXTURES)) {
    it(`${name}: fails with the documented error`, async () => {
      const e = await loadError(name);
      expect(e.retryClass).to.equal('content');
      if (typeof want === 'string') expect(e.message).to.equal(want);
      else expect(e.message).to.match(want);
    });
  }

  it('yaml11: values mean what they mean to operator-registry', async () => {
    const [b] = await load('yaml11');
    expect(b!.content).to.deep.equal({
      schema: 'io.example.yaml11',
      name: 'scalars',
      bools: [
        true,
        true,
        true,
        true,
        true,
        false,
        false,
        false,
        false,
        false,
        true,
        true,
        true,
        false,
        false,
        false,
        true,
        true,
        true,
        false,
        false,
        false,
      ],
      'not-bools': ['yES', 'oN', 'yes', 'no'],
      nulls: [null, null, null, null],
      empty: null,
      octal: 493,
      'octal-o': 15,
      hex: 31,
      'binary-int': 5,
      underscores: 1000000,
      'not-octal': 8,
      'float-exp': 1000,
      'float-dot': 0.5,
      'float-trailing-dot': 1,
      'float-one': 1,
      'big-int': 12345678901234567000,
      'bigger-int': 1.2345678901234568e29,
      'huge-float-is-string': '1e400',
      'negative-zero-int': 0,
      timestamp: '2001-12-14t21:59:43.10-05:00',
      date: '2002-12-14',
      'sexagesimal-is-string': '190:20:30',
      'version-like': '1.2.3',
      plus: 12,
      'quoted-number': '12',
      'tagged-int': 42,
      'tagged-float': 7,
      'tagged-str': '0755',
      binary: 'hello world',
      'local-tag': 'value',
      'merge-base': { a: 1, b: 2 },
      'merge-after': { a: 1, b: 2 },
      'merge-before': { a: 9, b: 2 },
      // `y` is a YAML 1.1 bool, so the key is "true".
      'merge-seq': { x: 1, true: 2 },
      '1': 'int key',
      '1.5': 'float key',
      '1.234567e+06': 'big float key',
      '1e-05': 'small float key',
      true: 'y is a bool key',
      '16': 'hex key',
      '2001-01-01': 'timestamp key',
      dup: 'last wins',
    });
  });

  it('custom schemas: repeated identities and blobs without package or name get content-hash identities', async () => {
    const blobs = await load('custom-schemas');
    expect(blobs[0]!.identity.disambiguator).to.equal(undefined);
    expect(blobs[1]!.identity.disambiguator).to.equal(blobs[1]!.hash.slice(7));
    expect(blobs[2]!.identity.disambiguator).to.equal(blobs[2]!.hash.slice(7));
    expect(blobs[3]!.identity.disambiguator).to.equal(blobs[3]!.hash.slice(7));
  });

  it('big-blob: a 2 MB blob is one blob with its exact size', async () => {
    const [b] = await load('big-blob');
    expect(b!.bytes).to.be.greaterThan(2 * 1024 * 1024);
  });

  it('contentHash does not depend on file layout: json-stream and its blobs split differently agree', async () => {
    const a = new CatalogHasher();
    for (const b of await load('json-stream')) a.add(b.hash);
    const b2 = new CatalogHasher();
    for (const b of (await load('json-stream')).reverse()) b2.add(b.hash);
    expect(a.digest()).to.equal(b2.digest());
  });

  it('canonical form is the same for the same blob in JSON and YAML', async () => {
    const json = (await load('json-stream'))[0]!;
    const yaml = (await load('indexignore')).find((b) => b.schema === 'olm.package')!;
    expect(yaml.canonical).to.equal(json.canonical);
  });
});

describe('fbc/catalog: IdentityRegistry', () => {
  it('standard schemas must be unique; custom ones are disambiguated by content', () => {
    const r = new IdentityRegistry('c');
    expect(r.identify('olm.package', '', 'p', 'sha256:aa', pos)).to.deep.equal({
      catalog: 'c',
      schema: 'olm.package',
      name: 'p',
    });
    expect(() => r.identify('olm.package', '', 'p', 'sha256:bb', pos)).to.throw(
      /duplicate schema="olm.package" name="p": also defined at f:1:1/,
    );
    expect(r.identify('x.y', 'p', 'n', 'sha256:aa', pos)).to.deep.equal({
      catalog: 'c',
      schema: 'x.y',
      package: 'p',
      name: 'n',
    });
    expect(r.identify('x.y', 'p', 'n', 'sha256:bb', pos)).to.deep.equal({
      catalog: 'c',
      schema: 'x.y',
      package: 'p',
      name: 'n',
      disambiguator: 'bb',
    });
    expect(() => r.identify('x.y', 'p', 'n', 'sha256:bb', pos)).to.throw(
      /duplicate blob .*identical to the blob at f:1:1/,
    );
  });

  it('blobs without package and name are identified by content', () => {
    const r = new IdentityRegistry('c');
    expect(r.identify('x.y', '', '', 'sha256:aa', pos)).to.deep.equal({
      catalog: 'c',
      schema: 'x.y',
      disambiguator: 'aa',
    });
    expect(() => r.identify('x.y', '', '', 'sha256:aa', pos)).to.throw(/duplicate blob/);
  });
});

import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { CatalogHasher } from '../api/v1/index.js';
import { IdentityRegistry, readCatalog } from './catalog.js';
import type { Blob } from './catalog.js';
import { BAD_FIXTURES, FIXTURES, GOOD_FIXTURES } from '../../test/fixtures/fbc/expectations.js';
import { generateCatalog, generateCatalogFiles } from '../../test/support/fbcgen.js';
import { FbcError } from './errors.js';
import { LargeGarbage } from '../util/large-garbage.js';
import { DEFAULT_MAX_OBJECT_BYTES, toCatalogMetadata } from './objects.js';

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

  it('big-blob: a 2 MB blob is one blob; its object omits content over the 1 MiB default', async () => {
    const [b] = await load('big-blob');
    expect(b!.bytes).to.be.greaterThan(2 * 1024 * 1024);
    const o = toCatalogMetadata(b!, {
      maxObjectBytes: DEFAULT_MAX_OBJECT_BYTES,
      contentUrl: () => 'u',
    });
    expect(o.spec.content).to.equal(undefined);
    expect(o.spec.contentOmitted).to.deep.equal({ bytes: b!.bytes, url: 'u' });
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

describe('fbc/catalog: generated catalogs (test/support/fbcgen.ts)', () => {
  it('are deterministic from the seed, realistic, and parse', async () => {
    const files = (seed: number) => [...generateCatalogFiles({ seed, sizeMB: 0.3 })];
    const a = files(11);
    expect(files(11)).to.deep.equal(a);
    expect(files(12)).not.to.deep.equal(a);
    const dir = await mkdtemp(path.join(tmpdir(), 'fbcgen-'));
    try {
      await generateCatalog(dir, { seed: 11, sizeMB: 0.3 });
      const schemas = new Map<string, number>();
      const propertyTypes = new Set<string>();
      for await (const b of readCatalog(dir, { catalog: 'gen' })) {
        schemas.set(b.schema, (schemas.get(b.schema) ?? 0) + 1);
        for (const p of (b.content.properties as { type: string }[] | undefined) ?? [])
          propertyTypes.add(p.type);
      }
      expect([...schemas.keys()].sort()).to.include.members([
        'olm.bundle',
        'olm.channel',
        'olm.package',
      ]);
      expect([...propertyTypes].sort()).to.deep.equal([
        'olm.bundle.object',
        'olm.csv.metadata',
        'olm.gvk',
        'olm.package',
      ]);
      expect(a.some((f) => f.path.endsWith('.yaml'))).to.equal(true);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('rejects sizes outside 1..60 MB (0.01 allowed for tests)', () => {
    expect(() => [...generateCatalogFiles({ seed: 1, sizeMB: 61 })]).to.throw(/sizeMB/);
  });
});

describe('fbc/catalog: large blobs', () => {
  it('tells the large-garbage collector each blob once its consumer is done with it', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'fbc-large-'));
    try {
      const filler = 'x'.repeat(3000);
      await writeFile(
        path.join(dir, 'big.yaml'),
        [0, 1, 2, 3]
          .map((i) => `---\nschema: io.example.big\nname: b${i}\ndata: ${filler}\n`)
          .join(''),
      );
      let collections = 0;
      // A collection per two blobs of about 3 KB: the budget is 5,000 bytes of blobs ≥ 1,000.
      const largeGarbage = new LargeGarbage(() => collections++, 5000, 1000);
      const seen: number[] = [];
      for await (const b of readCatalog(dir, { catalog: 'test', largeGarbage })) {
        expect(b.bytes).to.be.greaterThan(3000);
        seen.push(collections);
      }
      // Told after each blob is consumed: none before the first two are done.
      expect(seen).to.deep.equal([0, 0, 1, 1]);
      expect(collections).to.equal(2);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

import { spawnSync } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { FIXTURES } from '../../test/fixtures/fbc/expectations.js';
import { generateCatalog } from '../../test/support/fbcgen.js';
import { canonicalize, parseDocuments, readCatalog } from '../fbc/index.js';
import type { CatalogMetadata } from '../api/v1/index.js';
import { render } from './render.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const GOLDEN = path.join(ROOT, 'test/golden/render');
/** Set UPDATE_GOLDEN=1 to rewrite the golden files from the current output. */
const UPDATE = process.env.UPDATE_GOLDEN === '1';

async function renderToString(
  dir: string,
  catalog: string,
  output: 'yaml' | 'json',
  opts: { serverUrl?: string; maxObjectBytes?: number; objectView?: 'crd' | 'served' } = {},
): Promise<string> {
  let out = '';
  await render(dir, { catalog, output, ...opts }, async (s) => {
    out += s;
  });
  return out;
}

function cli(...args: string[]) {
  return spawnSync(
    process.execPath,
    ['--import', 'tsx', path.join(ROOT, 'src/cmd/catalogd.ts'), 'render', ...args],
    { encoding: 'utf8', cwd: ROOT, maxBuffer: 1 << 28 },
  );
}

const CASES: [fixture: string, output: 'yaml' | 'json'][] = [
  ['json-stream', 'yaml'],
  ['json-stream', 'json'],
  ['multi-doc-yaml', 'yaml'],
  ['custom-schemas', 'yaml'],
  ['yaml11', 'yaml'],
  ['yaml11', 'json'],
  ['deep-json', 'yaml'],
];

describe('catalogd render', () => {
  for (const [fixture, output] of CASES) {
    it(`${fixture} -o ${output} matches test/golden/render/${fixture}.${output}`, async () => {
      const got = await renderToString(path.join(FIXTURES, fixture), 'operatorhubio', output);
      const file = path.join(GOLDEN, `${fixture}.${output}`);
      if (UPDATE) await writeFile(file, got);
      expect(got).to.equal(await readFile(file, 'utf8'));
    });
  }

  it('YAML output reads back (with operator-registry semantics) to the same blobs', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'render-'));
    try {
      await generateCatalog(dir, { seed: 3, sizeMB: 0.5 });
      for (const source of [
        path.join(FIXTURES, 'yaml11'),
        path.join(FIXTURES, 'custom-schemas'),
        dir,
      ]) {
        const want: string[] = [];
        for await (const b of readCatalog(source, { catalog: 'c' })) want.push(b.canonical);
        const yaml = await renderToString(source, 'c', 'yaml');
        const got: string[] = [];
        for await (const d of parseDocuments(Readable.from([Buffer.from(yaml)]), 'out.yaml'))
          got.push(canonicalize((d.value!.spec as { content: unknown }).content));
        expect(got).to.deep.equal(want);
        const json = JSON.parse(await renderToString(source, 'c', 'json')) as {
          items: { spec: { content: unknown } }[];
        };
        expect(json.items.map((i) => canonicalize(i.spec.content))).to.deep.equal(want);
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('the CLI prints the golden YAML, with the catalog name from --catalog', () => {
    const r = cli(path.join(FIXTURES, 'json-stream'), '--catalog', 'operatorhubio');
    expect(r.stderr).to.equal('');
    expect(r.status).to.equal(0);
    return readFile(path.join(GOLDEN, 'json-stream.yaml'), 'utf8').then((golden) =>
      expect(r.stdout).to.equal(golden),
    );
  });

  it('the CLI exits 1 with the error, and prints nothing else, on bad input', () => {
    const r = cli(path.join(FIXTURES, 'error-missing-schema'), '--catalog', 'c');
    expect(r.status).to.equal(1);
    expect(r.stdout).to.equal('');
    expect(r.stderr).to.equal(
      'catalogd render: etcd/catalog.json:2:1: missing schema: a blob must have a non-empty "schema" string\n',
    );
  });

  it('a hostile file name is quoted in the error, and nothing in it reaches the terminal raw', async () => {
    // A name that would erase the line above and forge one of its own, and a C1 CSI.
    const names = ['evil\n\x1b[1A\x1b[2Kcatalogd render: all good.json', 'c1\u009b2J\u202e.json'];
    for (const name of names) {
      const dir = await mkdtemp(path.join(tmpdir(), 'render-hostile-'));
      try {
        await writeFile(path.join(dir, name), '{"schema": "olm.package", "name": }\n');
        const r = cli(dir, '--catalog', 'c');
        expect(r.status).to.equal(1);
        expect(r.stdout).to.equal('');
        expect(r.stderr).to.equal(
          `catalogd render: ${JSON.stringify(name).replace(/[\u0080-\u009f\u202e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)}:1:35: invalid JSON: unexpected "}", expected a value\n`,
        );
        // eslint-disable-next-line no-control-regex
        expect(r.stderr.slice(0, -1)).to.not.match(/[\u0000-\u001f\u007f-\u009f\u202e]/);
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    }
  });

  it('-o json escapes C1 and bidi controls in values (the same JSON when parsed)', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'render-c1-'));
    try {
      const blob = { schema: 'olm.package', name: 'p', description: 'x\u009b2J\u202ey\x1b[2J' };
      await writeFile(path.join(dir, 'catalog.json'), JSON.stringify(blob));
      const out = await renderToString(dir, 'c', 'json');
      expect(out).to.include('x\\u009b2J\\u202ey\\u001b[2J');
      // eslint-disable-next-line no-control-regex
      expect(out).to.not.match(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202e]/);
      const parsed = JSON.parse(out) as { items: CatalogMetadata[] };
      expect(parsed.items[0]!.spec.content).to.deep.equal(blob);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('the CLI exits 1 for a directory that does not exist, or a file, naming it', () => {
    const missing = path.join(FIXTURES, 'no-such-dir');
    const r = cli(missing, '--catalog', 'c');
    expect(r.status).to.equal(1);
    expect(r.stderr).to.equal(`catalogd render: ${missing}: no such directory\n`);
    const file = path.join(FIXTURES, 'error-missing-schema', 'etcd', 'catalog.json');
    const f = cli(file, '--catalog', 'c');
    expect(f.status).to.equal(1);
    expect(f.stderr).to.equal(`catalogd render: ${file}: not a directory\n`);
  });

  it('an object over --max-object-bytes renders as the controller writes it: contentOmitted, its URL at --server-url', async () => {
    const args = ['--server-url', 'http://catalogd.example:80/', '--max-object-bytes', '1000'];
    const got = cli(path.join(FIXTURES, 'json-stream'), '--catalog', 'operatorhubio', ...args);
    expect(got.stderr).to.equal('');
    const file = path.join(GOLDEN, 'json-stream.omitted.yaml');
    if (UPDATE) await writeFile(file, got.stdout);
    expect(got.stdout).to.equal(await readFile(file, 'utf8'));
    const json = JSON.parse(
      await renderToString(path.join(FIXTURES, 'json-stream'), 'operatorhubio', 'json', {
        serverUrl: 'http://catalogd.example:80/',
        maxObjectBytes: 1000,
      }),
    ) as { items: CatalogMetadata[] };
    const omitted = json.items.filter((i) => i.spec.contentOmitted);
    expect(omitted.length).to.be.greaterThan(0);
    expect(omitted.length).to.be.lessThan(json.items.length);
    for (const o of omitted) {
      expect(o.spec.content).to.equal(undefined);
      expect(o.metadata.annotations?.['olm.operatorframework.io/content-omitted']).to.equal(
        'max-object-bytes',
      );
      expect(o.spec.contentOmitted?.url).to.match(
        /^http:\/\/catalogd\.example:80\/catalogs\/operatorhubio\/api\/v1\/metas\?schema=/,
      );
      expect(o.metadata.ownerReferences).to.equal(undefined);
    }
  });

  it('the CLI exits 2 on usage errors and names an invalid default catalog name', async () => {
    expect(cli().status).to.equal(2);
    expect(cli(FIXTURES, '-o', 'xml').status).to.equal(2);
    const badBytes = cli(FIXTURES, '--max-object-bytes', '1MiB');
    expect([badBytes.status, badBytes.stderr]).to.deep.equal([
      2,
      'catalogd render: --max-object-bytes "1MiB" is not a positive integer\n',
    ]);
    const badUrl = cli(FIXTURES, '--server-url', 'catalogd:80');
    expect([badUrl.status, badUrl.stderr]).to.deep.equal([
      2,
      'catalogd render: --server-url "catalogd:80" is not an http(s) URL\n',
    ]);
    const badView = cli(FIXTURES, '--object-view', 'etcd');
    expect([badView.status, badView.stderr]).to.deep.equal([
      2,
      'catalogd render: --object-view "etcd" is not crd or served\n',
    ]);
    const r = cli(path.join(FIXTURES, 'json-stream'));
    expect(r.status).to.equal(0);
    expect(r.stdout).to.contain('catalog: json-stream');
    const parent = await mkdtemp(path.join(tmpdir(), 'render-'));
    try {
      const bad = cli(path.join(parent, 'My_Catalog'));
      expect(bad.status).to.equal(2);
      expect(bad.stderr).to.equal(
        'catalogd render: catalog name "My_Catalog" is not a valid DNS-1123 subdomain; pass --catalog NAME\n',
      );
    } finally {
      await rm(parent, { recursive: true, force: true });
    }
  });

  it('--object-view served renders the same objects but for apiVersion (the served group)', async () => {
    for (const output of ['yaml', 'json'] as const) {
      const dir = path.join(FIXTURES, 'custom-schemas');
      const crd = await renderToString(dir, 'custom-schemas', output);
      const served = await renderToString(dir, 'custom-schemas', output, { objectView: 'served' });
      const count = (text: string, s: string) => text.split(s).length - 1;
      const objects = count(crd, 'olm.operatorframework.io/v1');
      expect(objects).to.be.greaterThan(0);
      expect(count(served, 'content.olm.operatorframework.io/v1')).to.equal(objects);
      expect(
        served.replaceAll('content.olm.operatorframework.io/v1', 'olm.operatorframework.io/v1'),
      ).to.equal(crd);
    }
  });
});

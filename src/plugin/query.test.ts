// `kubectl catalog query`: golden transcripts against the real GraphQL endpoint serving the
// fixture catalog (test/support/graphql-fixture.ts), and the request it sends. Regenerate with
//
//   UPDATE_GOLDEN=1 npx mocha --config .mocharc.unit.cjs src/plugin/query.test.ts
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { expect } from 'chai';
import {
  FIXTURE_BLOBS,
  FIXTURE_CATALOG,
  runPlugin,
} from '../../test/support/kubectl-catalog-fixture.js';
import { load } from 'js-yaml';
import { graphqlFixture } from '../../test/support/graphql-fixture.js';
import { HOSTILE_BLOBS, rawControls } from '../../test/support/hostile-catalog.js';
import type { GraphqlFixture } from '../../test/support/graphql-fixture.js';

const golden = path.resolve(
  import.meta.dirname,
  '..',
  '..',
  'test',
  'golden',
  'kubectl-catalog',
  'query.txt',
);

const COMMANDS: string[][] = [
  ['query', '{ olmpackages { name defaultChannel } }', '--catalog', 'demo'],
  ['query', '{ olmpackages(limit: 1) { name } }', '--catalog', 'demo', '-o', 'yaml'],
  [
    'query',
    'query ($n: Int) { olmbundles(limit: $n) { name image } }',
    '--catalog',
    'demo',
    '--variables',
    '{"n": 2}',
  ],
  [
    'query',
    'query A { olmpackages { name } } query B { summary { totalSchemas } }',
    '--catalog',
    'demo',
    '--operation-name',
    'B',
  ],
  // Errors of the answer: on stderr, exit 1.
  ['query', '{ olmpackages { nope } }', '--catalog', 'demo'],
  ['query', '{ olmpackages {', '--catalog', 'demo'],
  ['query', '{ olmbundles(limit: $n) { name } }', '--catalog', 'demo'],
  // What the command refuses before asking.
  ['query', '{ olmpackages { name } }', '--catalog', 'demo', '--variables', '[1]'],
  ['query', '{ olmpackages { name } }', '--catalog', 'demo', '--variables', '{'],
  ['query', '{ olmpackages { name } }', '--catalog', 'nope'],
  ['query', '{ olmpackages { name } }', '--channel', 'stable'],
  ['query', ' ', '--catalog', 'demo'],
  ['query'],
  ['query', '-h'],
];

describe('kubectl catalog query', () => {
  let f: GraphqlFixture;
  before(async () => {
    f = await graphqlFixture([{ name: FIXTURE_CATALOG, blobs: FIXTURE_BLOBS }]);
  });
  after(async () => {
    await f.close();
  });

  it('golden transcripts: data as JSON or YAML, errors on stderr with exit 1', async () => {
    const parts: string[] = [];
    for (const args of COMMANDS) {
      const { code, stdout, stderr } = await runPlugin(args, f.client);
      parts.push(
        `$ kubectl catalog ${args.map((a) => (/[\s{}$"[]/.test(a) ? `'${a}'` : a)).join(' ')}\n# exit ${code}\n${stdout}${stderr ? `# stderr\n${stderr}` : ''}`,
      );
    }
    const actual = parts.join('\n');
    if (process.env.UPDATE_GOLDEN) await writeFile(golden, actual);
    expect(actual).to.equal(await readFile(golden, 'utf8'));
  });

  it("asks the catalog's status.urls.base, as a GET with the query in the URL", async () => {
    f.asked.length = 0;
    const r = await runPlugin(['query', '{ olmpackages { name } }', '--catalog', 'demo'], f.client);
    expect(r.code).to.equal(0);
    expect(f.asked).to.have.length(1);
    const url = new URL(f.asked[0]!);
    expect(url.origin + url.pathname).to.equal(
      `http://catalogd.test/catalogs/demo/revisions/${'a'.repeat(16)}/api/v1/graphql`,
    );
    expect(url.searchParams.get('query')).to.equal('{ olmpackages { name } }');
  });

  it('sends a long query as a POST (the same answer)', async () => {
    const long = `{ olmpackages { name } }${' '.repeat(9000)}`;
    const r = await runPlugin(['query', long, '--catalog', 'demo'], f.client);
    expect(new URL(f.asked.at(-1)!).search).to.equal('');
    const short = await runPlugin(
      ['query', '{ olmpackages { name } }', '--catalog', 'demo'],
      f.client,
    );
    expect(r).to.deep.equal(short);
  });

  it('makes terminal controls in an error message visible', async () => {
    const r = await runPlugin(
      ['query', '{ olmpackages { "\u001b]0;x\u0007" } }', '--catalog', 'demo'],
      f.client,
    );
    expect(r.code).to.equal(1);
    expect(r.stderr).to.not.include('\u001b').and.not.include('\u0007');
    expect(r.stderr).to.include('^[');
  });

  it("prints a hostile catalog's strings with no raw control, exact when parsed", async () => {
    const h = await graphqlFixture([{ name: 'evil', blobs: HOSTILE_BLOBS }]);
    try {
      const q = '{ olmpackages { name description } olmchannels { name package } }';
      const json = await runPlugin(['query', q, '--catalog', 'evil'], h.client);
      const yaml = await runPlugin(['query', q, '--catalog', 'evil', '-o', 'yaml'], h.client);
      expect(json.code, json.stderr).to.equal(0);
      for (const r of [json, yaml]) {
        expect(rawControls(r.stdout)).to.deep.equal([]);
        expect(rawControls(r.stderr)).to.deep.equal([]);
      }
      const direct = await h.client.graphql(q, { catalog: 'evil' });
      expect(JSON.parse(json.stdout)).to.deep.equal(direct.data);
      expect(load(yaml.stdout)).to.deep.equal(direct.data);
      expect(JSON.stringify(direct.data)).to.match(/\\u001b/);
    } finally {
      await h.close();
    }
  });

  it("without --catalog: the endpoint across catalogs, under the server URL of the catalogs' bases", async () => {
    const extra = [
      { schema: 'olm.package', name: 'extra-operator', defaultChannel: 'fast' },
    ] as typeof FIXTURE_BLOBS;
    const two = await graphqlFixture(
      [
        { name: FIXTURE_CATALOG, blobs: FIXTURE_BLOBS },
        { name: 'extra', blobs: extra },
      ],
      { extra: 5 },
    );
    try {
      const r = await runPlugin(
        ['query', '{ catalogs { name priority } olmpackages { catalog name } }', '-o', 'yaml'],
        two.client,
      );
      expect(r.code, r.stderr).to.equal(0);
      expect(r.stdout).to.equal(
        [
          'catalogs:',
          '  - name: extra',
          '    priority: 5',
          '  - name: demo',
          '    priority: 0',
          'olmpackages:',
          '  - catalog: extra',
          '    name: extra-operator',
          '  - catalog: demo',
          '    name: demo-operator',
          '  - catalog: demo',
          '    name: plain-operator',
          '',
        ].join('\n'),
      );
      const url = new URL(two.asked.at(-1)!);
      expect(url.origin + url.pathname).to.equal('http://catalogd.test/api/v1/graphql');
    } finally {
      await two.close();
    }
  });
});

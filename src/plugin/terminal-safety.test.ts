// `kubectl catalog` on a catalog whose every string carries a terminal control sequence (OSC 52
// clipboard writes, window titles, screen clears, cursor-up-and-erase, C1 CSI, bidi override):
// no output of any command writes one raw (SPEC §5.2), and documents stay exact when parsed.
import { expect } from 'chai';
import { load } from 'js-yaml';
import type { PluginRun } from '../../test/support/kubectl-catalog-fixture.js';
import {
  fixtureClient,
  packageCommands,
  runPlugin,
} from '../../test/support/kubectl-catalog-fixture.js';
import type { Shape } from '../../test/support/lean-objects.js';
import {
  HOSTILE_BLOBS,
  HOSTILE_BUNDLES,
  HOSTILE_CHANNEL,
  HOSTILE_GVK,
  HOSTILE_PACKAGE,
  SEQ,
  rawControls,
} from '../../test/support/hostile-catalog.js';

function kubectlCatalog(args: string[], shape: Shape = 'full'): Promise<PluginRun> {
  return runPlugin(args, fixtureClient(HOSTILE_BLOBS, shape).client);
}

const P = HOSTILE_PACKAGE;
const TEXT_COMMANDS: string[][] = [
  ['packages'],
  ['packages', '--install-mode', 'AllNamespaces'],
  ['packages', '--search', 'evil', '--no-headers'],
  ...packageCommands(P, HOSTILE_CHANNEL),
  ['upgrades', P, '--from', '1.0.0'],
  ['upgrades', P, '--from', '2.0.0'],
  ['provides', HOSTILE_GVK],
];

describe('kubectl catalog: catalog strings never reach the terminal raw', () => {
  for (const shape of ['full', 'lean'] as const) {
    it(`every text output and warning of every command (${shape} objects)`, async () => {
      for (const args of TEXT_COMMANDS) {
        const r = await kubectlCatalog(args, shape);
        const what = `kubectl catalog ${JSON.stringify(args)}`;
        expect(r.code, `${what}: ${r.stderr}`).to.equal(0);
        expect(r.stdout + r.stderr, what).to.not.equal('');
        // show --long keeps the description's tabs (a multi-line field).
        expect(rawControls(r.stdout, args.includes('--long')), `${what} stdout`).to.deep.equal([]);
        expect(rawControls(r.stderr), `${what} stderr`).to.deep.equal([]);
      }
    });
  }

  it('a deprecation that would erase its own warning is shown, escaped', async () => {
    const r = await kubectlCatalog(['channels', P]);
    expect(r.stderr.split('\n')).to.include(
      `warning: package ${P} is deprecated: ^[[1A^[[2K^[[1A^[[2K`,
    );
    const g = await kubectlCatalog(['graph', P]);
    expect(g.stderr).to.include(
      'warning: channel stable<U+009B>2J: evil.v2.0.0^[[2J^[[H: ignoring skipRange: invalid version "2.0.0\\u001b[1A\\u001b[2K"',
    );
    expect(g.stderr).to.include(
      'warning: channel stable<U+009B>2J is deprecated: frozen^[[1A^[[2K',
    );
    // A message's newline cannot start a line of its own.
    const u = await kubectlCatalog(['upgrades', P, '--from', '1.0.0']);
    expect(u.stderr).to.include('is deprecated: old^[]0;owned^G^Jerror: forged\n');
    expect(u.stderr.split('\n').filter((l) => l.startsWith('error:'))).to.deep.equal([]);
  });

  it('tables: one escaped line per row, columns measured after escaping', async () => {
    const r = await kubectlCatalog(['bundles', P]);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines).to.have.length(3);
    const versionColumn = lines[0]!.indexOf('VERSION');
    for (const l of lines.slice(1))
      expect(l.slice(versionColumn, versionColumn + 5)).to.match(/^\d\.0\.0$/);
    expect(lines[1]).to.include('evil.v2.0.0^[[2J^[[H');
    expect(lines[1]).to.include('quay.io/evil/bundle:v2<U+009B>2J');
    expect(lines[2]).to.include('quay.io/evil/bundle:v1^[]52;c;cHduZWQ=^G');
  });

  it('show: each value one line, the description indented lines, all escaped', async () => {
    const r = await kubectlCatalog(['show', P, '--long']);
    expect(r.stdout).to.include('Display name:            Evil^[[2J^[[H\n');
    expect(r.stdout).to.include(
      'Provider:                Evil Corp<U+009B>2J (https://evil.example^[]0;owned^G)\n',
    );
    expect(r.stdout).to.include('Package deprecation:     ^[[1A^[[2K^[[1A^[[2K\n');
    expect(r.stdout).to.include('Channel deprecation:     stable<U+009B>2J: frozen^[[1A^[[2K\n');
    expect(r.stdout).to.include(
      "Description:\n  The CSV's description.^[]52;c;cHduZWQ=^G\n\n  Second paragraph^[]0;owned^G.\n  Tabbed\tline.\n",
    );
  });

  it('-o json: C1 and bidi controls escaped too, and the document is exact when parsed', async () => {
    const r = await kubectlCatalog(['show', P, '-o', 'json']);
    expect(r.code).to.equal(0);
    expect(rawControls(r.stdout.replaceAll('\n', ''))).to.deep.equal([]);
    expect(r.stdout).to.include('\\u009b2J');
    const doc = JSON.parse(r.stdout) as {
      displayName: string;
      provider: { name: string };
      keywords: string[];
    };
    expect(doc.displayName).to.equal(`Evil${SEQ.clear}`);
    expect(doc.provider.name).to.equal(`Evil Corp${SEQ.c1}`);
    expect(doc.keywords).to.deep.equal([`evil${SEQ.bidi}`]);
    const b = await kubectlCatalog(['bundles', P, '-o', 'json']);
    const items = (JSON.parse(b.stdout) as { items: Array<{ name: string; image: string }> }).items;
    expect(items.map((i) => i.name)).to.deep.equal([HOSTILE_BUNDLES[1], HOSTILE_BUNDLES[0]]);
    expect(items[0]!.image).to.equal(`quay.io/evil/bundle:v2${SEQ.c1}`);
  });

  it('-o yaml: js-yaml escapes controls; a document with a bidi control is written as JSON (which is YAML)', async () => {
    const noBidi = await kubectlCatalog(['bundles', P, '-o', 'yaml']);
    expect(rawControls(noBidi.stdout)).to.deep.equal([]);
    expect(noBidi.stdout).to.match(/^items:\n/);
    expect(noBidi.stdout).to.include('image: "quay.io/evil/bundle:v2\\x9B2J"');
    const docs = load(noBidi.stdout) as { items: Array<{ image: string }> };
    expect(docs.items[0]!.image).to.equal(`quay.io/evil/bundle:v2${SEQ.c1}`);
    // show's keywords hold a right-to-left override.
    const bidi = await kubectlCatalog(['show', P, '-o', 'yaml']);
    expect(rawControls(bidi.stdout)).to.deep.equal([]);
    const viaYaml = load(bidi.stdout) as { keywords: string[] };
    expect(viaYaml.keywords).to.deep.equal([`evil${SEQ.bidi}`]);
    expect(viaYaml).to.deep.equal(
      JSON.parse((await kubectlCatalog(['show', P, '-o', 'json'])).stdout),
    );
  });

  it('an error message quoting catalog text is one escaped line', async () => {
    const r = await kubectlCatalog(['bundles', P, '--channel', 'nope']);
    expect(r.code).to.equal(1);
    expect(rawControls(r.stderr)).to.deep.equal([]);
    const errors = r.stderr.split('\n').filter((l) => l.startsWith('error:'));
    expect(errors).to.deep.equal([
      'error: package "evil-operator" has no channel "nope"; its channels: stable<U+009B>2J',
    ]);
  });
});

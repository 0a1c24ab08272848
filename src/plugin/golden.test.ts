// Golden outputs of the plugin's commands on a fixture catalog (test/support/kubectl-catalog-fixture.ts): what a
// person sees (stdout, stderr and the exit code), byte for byte. A changed output fails until the
// golden file is regenerated and reviewed:
//
//   UPDATE_GOLDEN=1 npx mocha --config .mocharc.unit.cjs src/plugin/golden.test.ts
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { expect } from 'chai';
import { run } from './main.js';
import {
  FIXTURE_BLOBS,
  fixtureClient,
  runPlugin,
} from '../../test/support/kubectl-catalog-fixture.js';
import type { Shape } from '../../test/support/lean-objects.js';

const goldenDir = path.resolve(
  import.meta.dirname,
  '..',
  '..',
  'test',
  'golden',
  'kubectl-catalog',
);

/** Runs the plugin on the fixture; the transcript shows the command, exit code, stdout, stderr. */
async function transcript(args: string[], shape: Shape = 'full'): Promise<string> {
  const { code, stdout, stderr } = await runPlugin(
    args,
    fixtureClient(FIXTURE_BLOBS, shape).client,
  );
  return `$ kubectl catalog ${args.join(' ')}\n# exit ${code}\n${stdout}${stderr ? `# stderr\n${stderr}` : ''}`;
}

async function golden(file: string, commands: string[][]): Promise<void> {
  const parts: string[] = [];
  for (const args of commands) parts.push(await transcript(args));
  const actual = parts.join('\n');
  const target = path.join(goldenDir, file);
  if (process.env.UPDATE_GOLDEN) await writeFile(target, actual);
  expect(actual).to.equal(await readFile(target, 'utf8'));
}

/** Golden file → the commands it records. */
const GOLDEN: Record<string, string[][]> = {
  'upgrades.txt': [
    ['upgrades', 'demo-operator', '--from', '1.0.0'],
    ['upgrades', 'demo-operator', '--from', 'v1.1.0', '--no-headers'],
    ['upgrades', 'demo-operator', '--from', 'demo-operator.v1.2.0-rc.1'],
    ['upgrades', 'demo-operator', '--from', '1.3.0'],
    ['upgrades', 'demo-operator', '--from', '1.0.0', '--channel', 'legacy'],
    ['upgrades', 'demo-operator', '--from', '1.0.0', '-o', 'json'],
    ['upgrades', 'demo-operator', '--from', '1.2.0-rc.1', '-o', 'yaml'],
  ],
  'upgrades-errors.txt': [
    ['upgrades', 'demo-operator', '--from', '9.9.9'],
    ['upgrades', 'demo-operator', '--from', '1.0.0', '--channel', 'nope'],
    ['upgrades', 'no-such-operator', '--from', '1.0.0', '--catalog', 'demo'],
    ['upgrades', 'demo-operator'],
    ['upgrades', 'demo-operator', '--from', '1.0.0', '--search', 'x'],
    ['upgrades', 'demo-operator', '--from', '1.0.0', '-o', 'wide'],
    ['upgrades', '-h'],
  ],
  'packages.txt': [
    ['packages'],
    ['packages', '--install-mode', 'AllNamespaces'],
    ['packages', '--install-mode', 'MultiNamespace'],
    ['packages', '--kube-version', '1.27'],
    ['packages', '--kube-version', '1.28', '--arch', 'amd64', '--os', 'linux'],
    ['packages', '--category', 'developer tools', '--capability', 'Basic Install'],
    ['packages', '--provider', 'demo', '--keyword', 'EXAMPLE'],
    ['packages', '--openshift-version', '4.20'],
    ['packages', '--search', 'runs demos', '-o', 'json'],
    ['packages', '--search', 'plain', '--no-headers'],
    ['packages', '--install-mode', 'Cluster'],
    ['packages', '--kube-version', 'latest'],
    ['packages', '--from', '1.0.0'],
  ],
  'deprecations.txt': [
    ['channels', 'demo-operator'],
    ['bundles', 'demo-operator', '--channel', 'stable'],
    ['graph', 'demo-operator'],
    ['graph', 'demo-operator', '--channel', 'legacy', '-o', 'mermaid'],
    ['bundles', 'demo-operator', '--channel', 'legacy', '-o', 'yaml'],
    ['channels', 'plain-operator'],
    ['channels', 'plain-operator', '-o', 'json'],
  ],
  'show.txt': [
    ['show', 'demo-operator'],
    ['show', 'demo-operator', '--long'],
    ['show', 'demo-operator', '-o', 'json'],
    ['show', 'plain-operator', '-o', 'yaml'],
    ['show', 'plain-operator'],
    ['show', 'no-such-operator', '--catalog', 'demo'],
    ['show', 'demo-operator', '--channel', 'stable'],
    ['show', '-h'],
  ],
};

describe('kubectl catalog: golden outputs', () => {
  it('upgrades', () => golden('upgrades.txt', GOLDEN['upgrades.txt']!));
  it('upgrades: errors and help', () =>
    golden('upgrades-errors.txt', GOLDEN['upgrades-errors.txt']!));
  it('packages: filters and the DEPRECATED column', () =>
    golden('packages.txt', GOLDEN['packages.txt']!));
  it('channels, bundles, graph: deprecation marks', () =>
    golden('deprecations.txt', GOLDEN['deprecations.txt']!));
  it('show', () => golden('show.txt', GOLDEN['show.txt']!));
});

describe('kubectl catalog: a lean catalog answers as the full one', () => {
  it('every golden command prints the same on the lean objects (whole blobs fetched)', async () => {
    for (const [file, commands] of Object.entries(GOLDEN)) {
      for (const args of [...commands, ['provides', 'demo.example.com/v1/Demo'], ['list']]) {
        expect(await transcript(args, 'lean'), `${file}: ${args.join(' ')}`).to.equal(
          await transcript(args),
        );
      }
    }
  });

  it('fetches only what the command needs: the head for show and the filters, nothing else', async () => {
    const fetched = async (args: string[]) => {
      const f = fixtureClient(FIXTURE_BLOBS, 'lean');
      const code = await run(args, { stdout: () => {}, stderr: () => {}, client: () => f.client });
      expect(code, args.join(' ')).to.equal(0);
      return f.content.requests.map((u) => new URL(u).searchParams.get('name'));
    };
    expect(await fetched(['show', 'demo-operator'])).to.deep.equal(['demo-operator.v1.3.0']);
    // plain-operator's head has nothing lean leaves out: its object is whole, not fetched.
    expect(await fetched(['packages', '--keyword', 'demo'])).to.deep.equal([
      'demo-operator.v1.3.0',
    ]);
    for (const args of [
      ['packages'],
      ['channels', 'demo-operator'],
      ['bundles', 'demo-operator'],
      ['graph', 'demo-operator'],
      ['upgrades', 'demo-operator', '--from', '1.0.0'],
      ['provides', 'demo.example.com/v1/Demo'],
    ])
      expect(await fetched(args), args.join(' ')).to.deep.equal([]);
  });
});

// Issue 22, point 11: `npm pack`'s tarball, installed with `npm install -g` into a temporary
// prefix, gives working `catalogd` and `kubectl-catalog` commands, and on a Node older than
// package.json's engines they say so in one line instead of crashing. The package is built and
// packed in a temporary copy, so the test neither needs nor touches the checkout's dist/.
// `npm install -g` fetches the dependencies from the npm registry.
import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { cp, mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { repoRoot } from '../support/cluster.js';

const execFileAsync = promisify(execFile);

// A Node older than engines' 22.19, where the system has one (Debian's end-of-life Node 20).
const OLD_NODE_DIR = '/usr/bin';

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `file` with PATH starting at `pathHead` (where `#!/usr/bin/env node` finds its node). */
async function run(file: string, args: string[], pathHead: string, cwd = repoRoot): Promise<Run> {
  return execFileAsync(file, args, {
    cwd,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
    env: { ...process.env, PATH: `${pathHead}:${process.env.PATH ?? ''}` },
  }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (err: { code?: number; stdout?: string; stderr?: string }) => ({
      code: typeof err.code === 'number' ? err.code : -1,
      stdout: err.stdout ?? '',
      stderr: err.stderr ?? '',
    }),
  );
}

/** Node's version at `dir`/node, or undefined when there is none. */
async function nodeVersionAt(dir: string): Promise<string | undefined> {
  const result = await run(path.join(dir, 'node'), ['--version'], dir);
  return result.code === 0 ? result.stdout.trim().replace(/^v/, '') : undefined;
}

function olderThanEngines(version: string): boolean {
  const [major = 0, minor = 0] = version.split('.').map(Number);
  return major < 22 || (major === 22 && minor < 19);
}

describe('npm pack and npm install -g', function () {
  this.timeout(10 * 60 * 1000);
  // The node that runs the tests (Node >= 22.19), and its npm.
  const nodeDir = path.dirname(process.execPath);
  let tmp: string;
  let binDir: string;
  let packedFiles: string[];

  before(async () => {
    tmp = await mkdtemp(path.join(os.tmpdir(), 'catalogd-install-'));
    const pkg = path.join(tmp, 'package');
    await mkdir(pkg);
    for (const entry of ['package.json', 'README.md', 'bin', 'crds']) {
      await cp(path.join(repoRoot, entry), path.join(pkg, entry), { recursive: true });
    }
    const tsc = path.join(repoRoot, 'node_modules', 'typescript', 'bin', 'tsc');
    const build = await run(
      process.execPath,
      [tsc, '-p', path.join(repoRoot, 'tsconfig.build.json'), '--outDir', path.join(pkg, 'dist')],
      nodeDir,
    );
    expect(build, `the build failed:\n${build.stdout}${build.stderr}`).to.include({ code: 0 });

    const pack = await run('npm', ['pack', '--json', '--pack-destination', tmp], nodeDir, pkg);
    expect(pack, `npm pack failed:\n${pack.stderr}`).to.include({ code: 0 });
    const [packed] = JSON.parse(pack.stdout) as { filename: string; files: { path: string }[] }[];
    packedFiles = packed?.files.map((f) => f.path) ?? [];
    const tarball = path.join(tmp, packed?.filename ?? '');
    const prefix = path.join(tmp, 'prefix');
    const install = await run(
      'npm',
      ['install', '-g', '--prefix', prefix, '--no-audit', '--no-fund', '--loglevel=error', tarball],
      nodeDir,
      tmp,
    );
    expect(install, `npm install -g failed:\n${install.stderr}`).to.include({ code: 0 });
    binDir = path.join(prefix, 'bin');
  });

  after(async () => {
    if (tmp) await rm(tmp, { recursive: true, force: true });
  });

  it('installs a catalogd command that runs its subcommands', async () => {
    const help = await run(path.join(binDir, 'catalogd'), ['--help'], nodeDir);
    expect(help).to.include({ code: 0, stderr: '' });
    expect(help.stdout).to.match(/^usage: catalogd <command>/);

    // Rendering reads a catalog directory: the FBC parser and YAML writer are in the package.
    const render = await run(
      path.join(binDir, 'catalogd'),
      ['render', 'examples/catalog'],
      nodeDir,
    );
    expect(render, render.stderr).to.include({ code: 0, stderr: '' });
    expect(render.stdout).to.match(
      /^apiVersion: olm\.operatorframework\.io\/v1\nkind: CatalogMetadata\n/,
    );
    expect(render.stdout).to.include('package: example-operator');
  });

  it('installs a kubectl-catalog command', async () => {
    const help = await run(path.join(binDir, 'kubectl-catalog'), ['--help'], nodeDir);
    expect(help).to.include({ code: 0, stderr: '' });
    expect(help.stdout).to.match(/^kubectl catalog: /);
  });

  it('packs the launchers, the compiled code and the CRDs, and no tests', async () => {
    expect(packedFiles).to.include.members([
      'bin/catalogd.cjs',
      'bin/kubectl-catalog.cjs',
      'bin/launch.cjs',
      'dist/src/cmd/catalogd.js',
      'dist/src/plugin/kubectl-catalog.js',
      'crds/olm.operatorframework.io_clustercatalogs.yaml',
      'crds/olm.operatorframework.io_catalogmetadata.yaml',
    ]);
    expect(packedFiles.filter((p) => p.includes('.test.'))).to.deep.equal([]);
    const installed = path.join(path.dirname(binDir), 'lib', 'node_modules', 'catalogd-ts');
    const crd = await readFile(
      path.join(installed, 'crds', 'olm.operatorframework.io_clustercatalogs.yaml'),
      'utf8',
    );
    expect(crd).to.include('kind: CustomResourceDefinition');
  });

  it('says which Node it needs, in one line, on a Node older than 22.19', async function () {
    const oldVersion = await nodeVersionAt(OLD_NODE_DIR);
    if (oldVersion === undefined || !olderThanEngines(oldVersion)) {
      // Nothing to run the check with: this machine has no Node older than engines.
      this.skip();
    }
    for (const command of ['catalogd', 'kubectl-catalog']) {
      const result = await run(path.join(binDir, command), ['--help'], OLD_NODE_DIR);
      expect(result).to.deep.equal({
        code: 1,
        stdout: '',
        stderr:
          `${command} needs Node.js 22.19 or newer; this is Node ${oldVersion}. ` +
          'Install a newer Node (https://nodejs.org)\n',
      });
    }
  });
});

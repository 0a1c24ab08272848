// `make verify` = `make generate` + hack/verify-clean.sh: these tests check both halves. The
// repository's generated files must equal the generator's output, and the verify step must fail
// (naming the file) when a generated file was edited by hand, in a throwaway git repository.
import { expect } from 'chai';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { generatedFiles, writeGeneratedFiles } from '../../hack/gen-crds.js';

const repoRoot = path.resolve(import.meta.dirname, '..', '..');
const verifyClean = path.join(repoRoot, 'hack', 'verify-clean.sh');
const GENERATED_DIRS = ['crds', 'config/crd'];

function git(cwd: string, ...args: string[]): void {
  execFileSync(
    'git',
    ['-c', 'user.name=verify-test', '-c', 'user.email=verify@test.invalid', ...args],
    {
      cwd,
      stdio: 'ignore',
    },
  );
}

function runVerify(cwd: string): { status: number | null; stderr: string } {
  const r = spawnSync(verifyClean, GENERATED_DIRS, { cwd, encoding: 'utf8' });
  return { status: r.status, stderr: r.stderr };
}

describe('generated files (make verify)', () => {
  it('the repository holds exactly what hack/gen-crds.ts generates', async () => {
    for (const f of await generatedFiles()) {
      const committed = readFileSync(path.join(repoRoot, f.path), 'utf8');
      expect(committed, `${f.path} is stale: run make generate`).to.equal(f.content);
    }
  });

  describe('in a scratch git repository', () => {
    let dir: string;
    beforeEach(async () => {
      dir = mkdtempSync(path.join(tmpdir(), 'verify-generated-'));
      git(dir, 'init', '-q');
      await writeGeneratedFiles(dir);
      git(dir, 'add', '.');
      git(dir, 'commit', '-q', '-m', 'generated');
    });
    afterEach(() => rmSync(dir, { recursive: true, force: true }));

    it('passes when the committed files are what the generator writes (it is deterministic)', async () => {
      await writeGeneratedFiles(dir);
      expect(runVerify(dir).status).to.equal(0);
    });

    it('fails, naming the file, when a generated CRD was edited by hand', async () => {
      const crd = path.join(dir, 'crds', 'olm.operatorframework.io_clustercatalogs.yaml');
      writeFileSync(crd, readFileSync(crd, 'utf8').replace('maxLength: 1000', 'maxLength: 2000'));
      git(dir, 'commit', '-q', '-am', 'hand edit');
      await writeGeneratedFiles(dir);
      const r = runVerify(dir);
      expect(r.status).to.not.equal(0);
      expect(r.stderr).to.contain('crds/olm.operatorframework.io_clustercatalogs.yaml');
    });

    it('fails when a stale CRD file is left beside the generated ones', async () => {
      writeFileSync(path.join(dir, 'crds', 'olm.operatorframework.io_old.yaml'), 'kind: Stale\n');
      git(dir, 'add', '.');
      git(dir, 'commit', '-q', '-m', 'stale file');
      await writeGeneratedFiles(dir);
      expect(runVerify(dir).status).to.not.equal(0);
    });
  });
});

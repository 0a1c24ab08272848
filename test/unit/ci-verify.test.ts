// CI runs `make verify` (generate + typecheck + type-checked lint + prettier + generated-files
// check) as part of `make test`, and a failed verify counts in .ci/run's `N passed, N failed`.
// These tests check the three links: the Makefile's test recipe, the recording of the verify
// outcome beside the mocha results and their sum, and that the lint uses type information.
import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ESLint } from 'eslint';

const repoRoot = path.resolve(import.meta.dirname, '..', '..');
const hack = (name: string) => path.join(repoRoot, 'hack', name);

/** The recipe lines of a Makefile target (the tab-indented lines after `target:`). */
function recipe(makefile: string, target: string): string {
  const lines = makefile.split('\n');
  const start = lines.findIndex((l) => l.startsWith(`${target}:`));
  if (start < 0) throw new Error(`no target ${target} in the Makefile`);
  const body: string[] = [];
  for (const l of lines.slice(start + 1)) {
    if (!l.startsWith('\t')) break;
    body.push(l);
  }
  return body.join('\n');
}

describe('CI runs make verify', () => {
  it('make test runs make verify, recorded as a check, before the test suites', () => {
    const test = recipe(readFileSync(path.join(repoRoot, 'Makefile'), 'utf8'), 'test');
    const verifyAt = test.indexOf(
      'hack/record-check.sh verify $(MAKE) --no-print-directory verify',
    );
    expect(verifyAt, 'make test does not run make verify').to.be.at.least(0);
    expect(verifyAt).to.be.below(test.indexOf('test-unit'));
    // A failed verify must not stop the suites from running, and must fail make test.
    expect(test).to.match(/verify \|\| status=1/);
  });

  describe('in a scratch directory', () => {
    let dir: string;
    beforeEach(() => {
      dir = mkdtempSync(path.join(tmpdir(), 'ci-verify-'));
      mkdirSync(path.join(dir, '.local', 'test-results'), { recursive: true });
      // What the mocha reporter writes for a green unit suite.
      writeFileSync(
        path.join(dir, '.local', 'test-results', 'unit.json'),
        '{"passed":3,"failed":0,"skipped":1}\n',
      );
    });
    afterEach(() => rmSync(dir, { recursive: true, force: true }));

    const recordCheck = (cmd: string) =>
      spawnSync(hack('record-check.sh'), ['verify', cmd], { cwd: dir, encoding: 'utf8' });
    const sum = () =>
      spawnSync(hack('sum-results.sh'), ['.local/test-results'], { cwd: dir, encoding: 'utf8' })
        .stdout;

    it('a failed verify is one failure in the summed results, and its status is kept', () => {
      const r = recordCheck('false');
      expect(r.status).to.equal(1);
      expect(r.stderr).to.equal('verify: failed (exit 1)\n');
      expect(sum()).to.equal('3 1 1\n');
    });

    it('a passing verify is one pass', () => {
      expect(recordCheck('true').status).to.equal(0);
      expect(sum()).to.equal('4 0 1\n');
    });
  });

  it('the lint runs typescript-eslint type-checked rules with the project service', async () => {
    const eslint = new ESLint({ cwd: repoRoot });
    const config = (await eslint.calculateConfigForFile(
      path.join(repoRoot, 'src', 'api', 'v1', 'index.ts'),
    )) as {
      rules: Record<string, unknown>;
      languageOptions: { parserOptions?: { projectService?: unknown } };
    };
    expect(config.languageOptions.parserOptions?.projectService).to.equal(true);
    // Rules of recommendedTypeChecked that need type information.
    for (const rule of ['no-floating-promises', 'no-misused-promises', 'await-thenable']) {
      expect(config.rules[`@typescript-eslint/${rule}`], rule).to.deep.equal([2]);
    }
  });
});

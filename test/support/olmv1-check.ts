// Runs hack/olmv1-check (built with operator-controller by hack/olmv1/build.sh): operator-controller's
// own catalog client and resolver reading one catalog from upstream catalogd (its storage code
// serving an FBC directory) and from catalogd-ts (a ClusterCatalog as catalogd-ts wrote it).
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { repoRoot } from './cluster.js';
import { runProcess } from './process.js';

/** What the check compared (counted on upstream's side) and every difference it found. */
export interface Olmv1CheckSummary {
  upstream: string;
  catalogdTs: string;
  packages: number;
  channels: number;
  bundles: number;
  deprecations: number;
  others: number;
  resolutions: number;
  resolvedBundles: number;
  differences: string[];
}

export interface Olmv1CheckResult {
  /** 0 same view, 1 the views differ, 2 an error. */
  code: number;
  summary?: Olmv1CheckSummary;
  stderr: string;
}

/**
 * The directory of the OLM v1 binaries (operator-controller, catalogd, olmv1-check,
 * informer-check), built on
 * first use: minutes with an empty Go build cache (`make test` builds them before the e2e tests).
 */
export async function olmv1BinDir(): Promise<string> {
  const script = path.join(repoRoot, 'hack', 'olmv1', 'build.sh');
  const { stdout } = await promisify(execFile)(script, { maxBuffer: 1 << 20 });
  return stdout.trim();
}

/** Runs `olmv1-check -fbc DIR -clustercatalog - -json` with the ClusterCatalog on stdin. */
export async function runOlmv1Check(
  binDir: string,
  fbcDir: string,
  clusterCatalog: unknown,
): Promise<Olmv1CheckResult> {
  const { code, stdout, stderr } = await runProcess(
    path.join(binDir, 'olmv1-check'),
    ['-fbc', fbcDir, '-clustercatalog', '-', '-json'],
    { stdin: JSON.stringify(clusterCatalog) },
  );
  const line = stdout.trim();
  return { code, stderr, ...(line && { summary: JSON.parse(line) as Olmv1CheckSummary }) };
}

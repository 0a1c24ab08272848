// The preamble and the end most e2e suites share. Before their tests: the project's CRDs
// installed, a temporary directory made, a controller started (setUpE2e), a catalog image pushed
// and its ClusterCatalog synced (pushAndSync). After them: the controller stopped, the suite's
// ClusterCatalogs deleted and the directory removed (tearDownE2e). Each step is optional and
// they run in this order; what a suite does between them stays in its own hooks.
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { ClusterCatalog } from '../../src/api/v1/index.js';
import { applyCatalog, installCrds, push, waitSynced } from './catalogs.js';
import type { RunningController, StartControllerOptions } from './controller.js';
import { startController } from './controller.js';
import { kubectl, kubectlOk } from './kubectl.js';

export interface E2eSetupOptions {
  /** A temporary directory named with this prefix, made once the CRDs are installed. */
  tmpPrefix?: string;
  /** A controller started with these options (`{}`: the defaults), last. */
  controller?: StartControllerOptions;
}

export interface E2eSetup {
  /** The temporary directory; '' without `tmpPrefix`. */
  tmp: string;
  controller?: RunningController;
}

/** The CRDs installed (installCrds), then the temporary directory made, the controller started. */
export async function setUpE2e(
  opts: E2eSetupOptions & { controller: StartControllerOptions },
): Promise<E2eSetup & { controller: RunningController }>;
export async function setUpE2e(opts?: E2eSetupOptions): Promise<E2eSetup>;
export async function setUpE2e(opts: E2eSetupOptions = {}): Promise<E2eSetup> {
  await installCrds();
  const tmp =
    opts.tmpPrefix === undefined ? '' : await mkdtemp(path.join(os.tmpdir(), opts.tmpPrefix));
  const controller = opts.controller && (await startController(opts.controller));
  return { tmp, ...(controller && { controller }) };
}

/**
 * Pushes `dir` as the catalog image `tag` of the e2e repository (push), applies ClusterCatalog
 * `name` for it and waits until it has synced (waitSynced, with its `notHash` and `timeoutMs`).
 */
export async function pushAndSync(
  name: string,
  dir: string,
  tag: string,
  opts: { notHash?: string; timeoutMs?: number } = {},
): Promise<ClusterCatalog> {
  await applyCatalog(name, await push(dir, tag));
  return waitSynced(name, opts.notHash, opts.timeoutMs);
}

export interface E2eTeardown {
  /** Stopped, one after the other, with `signal` (stop's default: SIGTERM). */
  controllers?: ReadonlyArray<RunningController | undefined>;
  signal?: NodeJS.Signals;
  /**
   * Deleted one at a time without waiting (kubectl delete --ignore-not-found --wait=false), after
   * the controllers stopped; a failed delete is not the hook's failure.
   */
  catalogs?: readonly string[];
  /**
   * The catalogs are deleted first instead, while the controllers still run (they remove the
   * catalogs' finalizers), and a failed delete fails the hook (kubectlOk) before anything stops.
   */
  deleteFirst?: boolean;
  /** Removed last, with what is in it, when set. */
  tmp?: string;
}

/** What a suite's after hook takes down of what its before hook set up, in the order above. */
export async function tearDownE2e(t: E2eTeardown): Promise<void> {
  const deleteArgs = (name: string) => [
    'delete',
    'clustercatalog',
    name,
    '--ignore-not-found',
    '--wait=false',
  ];
  if (t.deleteFirst) for (const name of t.catalogs ?? []) await kubectlOk(deleteArgs(name));
  for (const c of t.controllers ?? []) await c?.stop(t.signal);
  if (!t.deleteFirst) for (const name of t.catalogs ?? []) await kubectl(deleteArgs(name));
  if (t.tmp) await rm(t.tmp, { recursive: true, force: true });
}

/**
 * One controller serving the sample catalog `name` for a describe block (before: set up, push,
 * sync; after: stop, delete). `served()` is the catalog's status.urls.base once synced.
 */
export function serveSampleForSuite(
  name: string,
  sampleDir: string,
): { served: () => string; controller: () => RunningController } {
  let controller: RunningController | undefined;
  let base = '';
  before(async () => {
    ({ controller } = await setUpE2e({ controller: {} }));
    const c = await pushAndSync(name, sampleDir, `sample:${name}`);
    base = c.status?.urls?.base ?? '';
  });
  after(async () => {
    await controller?.stop();
    await kubectl(['delete', 'clustercatalog', name, '--wait=false']);
  });
  return {
    served: () => base,
    controller: () => {
      if (!controller) throw new Error('the controller is not started yet');
      return controller;
    },
  };
}

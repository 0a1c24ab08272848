// The kubectl of the local control plane's version, for tests that only render (kubectl
// kustomize) and need no cluster: KUBE_BIN_DIR's (set in e2e runs and by `make cluster-up`'s
// env), else the one hack/controlplane/build.sh caches (and builds on first use).
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { repoRoot } from './cluster.js';

let kubectl: string | undefined;

/** The path of that kubectl; build.sh runs once per process at most. */
export function localKubectl(): string {
  kubectl ??= path.join(
    process.env.KUBE_BIN_DIR ||
      execFileSync(path.join(repoRoot, 'hack', 'controlplane', 'build.sh'), {
        encoding: 'utf8',
      }).trim(),
    'kubectl',
  );
  return kubectl;
}

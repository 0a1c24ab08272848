// Runs the kubectl that matches the local apiserver (KUBE_BIN_DIR is first on PATH in e2e runs).
import type { ProcessResult } from './process.js';
import { runProcess } from './process.js';

export type KubectlResult = ProcessResult;

/** Runs kubectl; never throws on a non-zero exit (tests assert on code and stderr). */
export function kubectl(args: string[], stdin?: string): Promise<KubectlResult> {
  return runProcess('kubectl', args, { stdin });
}

/** Runs kubectl and throws with its stderr when it fails. */
export async function kubectlOk(args: string[], stdin?: string): Promise<string> {
  const r = await kubectl(args, stdin);
  if (r.code !== 0) throw new Error(`kubectl ${args.join(' ')} failed (${r.code}): ${r.stderr}`);
  return r.stdout;
}

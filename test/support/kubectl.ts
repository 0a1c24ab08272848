// Runs the kubectl that matches the local apiserver (KUBE_BIN_DIR is first on PATH in e2e runs).
import { spawn } from 'node:child_process';

export interface KubectlResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs kubectl; never throws on a non-zero exit (tests assert on code and stderr). */
export function kubectl(args: string[], stdin?: string): Promise<KubectlResult> {
  return new Promise((resolve, reject) => {
    const child = spawn('kubectl', args, {
      stdio: [stdin === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
    if (child.stdin) {
      // kubectl may exit before reading its input (e.g. on a bad flag): that is its answer, not ours.
      child.stdin.on('error', () => {});
      child.stdin.end(stdin);
    }
  });
}

/** Runs kubectl and throws with its stderr when it fails. */
export async function kubectlOk(args: string[], stdin?: string): Promise<string> {
  const r = await kubectl(args, stdin);
  if (r.code !== 0) throw new Error(`kubectl ${args.join(' ')} failed (${r.code}): ${r.stderr}`);
  return r.stdout;
}

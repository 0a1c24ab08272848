// Runs a command to its end and keeps what it printed, for tests that assert on a command's exit
// code and output: kubectl (kubectl.ts), the project's CLIs, the tools the e2e suites drive.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { repoRoot } from './cluster.js';

export interface ProcessResult {
  /** The exit code; -1 when a signal ended the process. */
  code: number;
  stdout: string;
  stderr: string;
}

export interface RunOptions {
  cwd?: string;
  /** The whole environment (default: this process's). */
  env?: NodeJS.ProcessEnv;
  /** Written to the process's stdin, which is then closed; without it, stdin is not connected. */
  stdin?: string;
  /** SIGKILLs the process after this long. */
  timeoutMs?: number;
}

/** Runs `cmd` with `args`; never rejects on the exit code (only when the command cannot start). */
export function runProcess(
  cmd: string,
  args: string[],
  opts: RunOptions = {},
): Promise<ProcessResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, {
      cwd: opts.cwd,
      env: opts.env,
      stdio: [opts.stdin === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = opts.timeoutMs ? setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs) : null;
    child.on('error', reject);
    child.on('close', (code) => {
      if (timer) clearTimeout(timer);
      resolve({ code: code ?? -1, stdout, stderr });
    });
    if (child.stdin) {
      // The process may exit before reading its input (e.g. on a bad flag): that is its answer,
      // not ours.
      child.stdin.on('error', () => {});
      child.stdin.end(opts.stdin);
    }
  });
}

/**
 * node's arguments that run the project's entry point src/`entry` (e.g. `cmd/catalogd.ts`) from its sources (through
 * tsx), as `npx tsx` would: put the command's own arguments after them.
 */
export function tsxEntry(entry: string): string[] {
  return ['--import', 'tsx', path.join(repoRoot, 'src', entry)];
}

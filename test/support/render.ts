// `catalogd render` as a user runs it (a child process through tsx), for the e2e tests that
// diff or apply its output against what the controller wrote.
import { spawn } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { repoRoot } from './cluster.js';
import { tsxEntry } from './process.js';

/** `catalogd render DIR ARGS…`, its YAML written to `out`; rejects with stderr on failure. */
export async function renderTo(dir: string, out: string, args: string[]): Promise<void> {
  const file = createWriteStream(out);
  await new Promise<void>((resolve) => file.once('open', () => resolve()));
  const child = spawn(process.execPath, [...tsxEntry('cmd/catalogd.ts'), 'render', dir, ...args], {
    cwd: repoRoot,
    stdio: ['ignore', file, 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
  file.close();
  if (code !== 0) throw new Error(`catalogd render exited ${code}: ${stderr}`);
}

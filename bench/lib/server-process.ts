// A benchmarked server as a child process (bench/serve-server.mjs, upstream's baseline): started
// with an IPC channel, ready once it prints its first line (its addresses), and asked for its
// process.memoryUsage() over that channel.
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';

/** Starts `cmd args` and returns it with the first line it prints; rejects if it exits first. */
export async function startServer(
  cmd: string,
  args: string[],
  env: NodeJS.ProcessEnv,
): Promise<[ChildProcess, string]> {
  const p = spawn(cmd, args, { env, stdio: ['ignore', 'pipe', 'inherit', 'ipc'] });
  const line = await new Promise<string>((resolve, reject) => {
    createInterface({ input: p.stdout! }).once('line', resolve);
    p.once('exit', (code) => reject(new Error(`${cmd} exited ${code}`)));
  });
  return [p, line];
}

/** serve-server.mjs started with `args`: the process and its HTTP and HTTPS addresses. */
export async function startServeServer(
  args: string[],
  env: NodeJS.ProcessEnv,
): Promise<[ChildProcess, { http: string; https: string }]> {
  const [p, line] = await startServer(process.execPath, args, env);
  return [p, JSON.parse(line) as { http: string; https: string }];
}

/** process.memoryUsage() of a serve-server.mjs child, asked over its IPC channel. */
export function memoryUsageOf(p: ChildProcess): Promise<NodeJS.MemoryUsage> {
  return new Promise((resolve) => {
    p.once('message', (m) => resolve(m as NodeJS.MemoryUsage));
    p.send('memoryUsage');
  });
}

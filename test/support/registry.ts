// Registry instances of a test's own: Debian's docker-registry (distribution 2.8) on a free
// 127.0.0.1 port with temp storage, optionally with htpasswd (Basic) or token (Bearer) auth.
// Started and stopped by PID; storage is on disk so tests can corrupt blobs.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import bcrypt from 'bcryptjs';
import { freePort } from './ports.js';

export interface RegistryAuth {
  htpasswd?: { username: string; password: string };
  token?: { realm: string; service: string; issuer: string; rootCertBundle: string };
}

export interface TestRegistry {
  /** 127.0.0.1:port */
  host: string;
  /** Storage root (filesystem driver). */
  storage: string;
  start(): Promise<void>;
  stop(): Promise<void>;
  /** Stops the registry and removes its storage. */
  dispose(): Promise<void>;
  /** Path of a blob's content on disk. */
  blobPath(digest: string): string;
}

/** Polls fn until it returns true or the deadline passes. */
export async function pollUntil(
  what: string,
  deadlineMs: number,
  fn: () => Promise<boolean>,
): Promise<void> {
  const end = Date.now() + deadlineMs;
  for (;;) {
    if (await fn().catch(() => false)) return;
    if (Date.now() > end) throw new Error(`${what}: not ready within ${deadlineMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

export async function startRegistry(auth: RegistryAuth = {}): Promise<TestRegistry> {
  const dir = await mkdtemp(path.join(tmpdir(), 'catalogd-test-registry-'));
  const storage = path.join(dir, 'storage');
  await mkdir(storage);
  const port = await freePort();
  const host = `127.0.0.1:${port}`;
  let authYaml = '';
  if (auth.htpasswd) {
    const file = path.join(dir, 'htpasswd');
    await writeFile(
      file,
      `${auth.htpasswd.username}:${bcrypt.hashSync(auth.htpasswd.password, 6)}\n`,
    );
    authYaml = `auth:\n  htpasswd:\n    realm: test-registry\n    path: ${file}\n`;
  } else if (auth.token) {
    const t = auth.token;
    authYaml = `auth:\n  token:\n    realm: ${t.realm}\n    service: ${t.service}\n    issuer: ${t.issuer}\n    rootcertbundle: ${t.rootCertBundle}\n`;
  }
  const config = path.join(dir, 'config.yml');
  await writeFile(
    config,
    `version: 0.1\nlog: {level: error}\nstorage:\n  filesystem: {rootdirectory: ${storage}}\n  delete: {enabled: true}\nhttp:\n  addr: ${host}\n${authYaml}`,
  );
  let proc: ChildProcess | undefined;
  const reg: TestRegistry = {
    host,
    storage,
    blobPath: (digest) => {
      const hex = digest.slice('sha256:'.length);
      return path.join(storage, 'docker/registry/v2/blobs/sha256', hex.slice(0, 2), hex, 'data');
    },
    async start() {
      if (proc) return;
      const p = spawn('docker-registry', ['serve', config], {
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      let stderr = '';
      p.stderr?.on('data', (c: Buffer) => (stderr = (stderr + c.toString()).slice(-4000)));
      proc = p;
      await pollUntil(`registry ${host}`, 20_000, async () => {
        if (p.exitCode !== null) throw new Error(`docker-registry exited: ${stderr}`);
        const res = await fetch(`http://${host}/v2/`);
        await res.arrayBuffer();
        return res.status === 200 || res.status === 401;
      });
    },
    async stop() {
      const p = proc;
      proc = undefined;
      if (!p || p.exitCode !== null) return;
      const exited = new Promise((r) => p.once('exit', r));
      p.kill('SIGTERM');
      const t = setTimeout(() => p.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(t);
    },
    async dispose() {
      await reg.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
  await reg.start();
  return reg;
}

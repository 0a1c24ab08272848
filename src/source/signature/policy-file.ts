// The policy file given to `--signature-policy`, and its reload: in a Deployment it is a ConfigMap
// mounted as a file, which the kubelet replaces when the ConfigMap changes. The file (and the key
// files it names) is read again on an interval of the injected clock and compared by content; a
// new policy that does not parse keeps the old one in force, and is logged and counted.
import { createHash } from 'node:crypto';
import { readFile as fsReadFile } from 'node:fs/promises';
import { pollEvery, type Clock } from '../../util/clock.js';
import { parseSignaturePolicy, PolicyError, type SignaturePolicy } from './policy.js';

export type ReadFile = (path: string) => Promise<Buffer>;

interface Loaded {
  policy: SignaturePolicy;
  fingerprint: string;
  keyPaths: string[];
}

/** The policy text and its key files' contents, as one hash (a key file not read: "unreadable"). */
function fingerprintOf(text: Buffer, keys: ReadonlyArray<readonly [string, Buffer]>): string {
  const h = createHash('sha256').update(text);
  for (const [p, bytes] of keys) h.update('\0').update(p).update('\0').update(bytes);
  return h.digest('hex');
}

const UNREADABLE = Buffer.from('unreadable');

async function readKeys(keyPaths: string[], readFile: ReadFile): Promise<[string, Buffer][]> {
  const keys: [string, Buffer][] = [];
  for (const p of keyPaths) keys.push([p, await readFile(p).catch(() => UNREADABLE)]);
  return keys;
}

async function readPolicy(path: string, readFile: ReadFile): Promise<Buffer> {
  try {
    return await readFile(path);
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    throw new PolicyError(
      `signature policy: cannot read ${path}${typeof code === 'string' ? ` (${code})` : ''}`,
    );
  }
}

/** Parses text; its fingerprint is of the key files' bytes the parse read (each read once). */
async function load(text: Buffer, readFile: ReadFile): Promise<Loaded> {
  const keys: [string, Buffer][] = [];
  const policy = await parseSignaturePolicy(text.toString('utf8'), async (p) => {
    const bytes = await readFile(p);
    keys.push([p, bytes]);
    return bytes;
  });
  return { policy, keyPaths: keys.map(([p]) => p), fingerprint: fingerprintOf(text, keys) };
}

export interface PolicyReloadHooks {
  /** A new policy is in force (re-verify what was verified under the old one). */
  onChange(): void;
  /** The file changed but does not parse: the old policy stays in force. */
  onError(err: PolicyError): void;
}

export class PolicyFile {
  /** Reloads that put a new policy in force, and those refused. */
  readonly reloads = { applied: 0, failed: 0 };
  private loaded: Loaded;
  /** The fingerprint of the last content that failed to parse (reported once, not every poll). */
  private failedFingerprint: string | undefined;

  private constructor(
    readonly path: string,
    loaded: Loaded,
    private readonly readFile: ReadFile,
  ) {
    this.loaded = loaded;
  }

  /** Reads and parses the file; throws PolicyError with a message for the user. */
  static async open(path: string, readFile: ReadFile = fsReadFile): Promise<PolicyFile> {
    return new PolicyFile(path, await load(await readPolicy(path, readFile), readFile), readFile);
  }

  current(): SignaturePolicy {
    return this.loaded.policy;
  }

  /** Reads the file again; applies it when its content (or a key file's) changed and it parses. */
  async reload(hooks: PolicyReloadHooks): Promise<void> {
    const text = await this.readFile(this.path).catch(() => undefined);
    if (!text) {
      this.fail(new PolicyError(`signature policy: cannot read ${this.path}`), 'unreadable', hooks);
      return;
    }
    const fingerprint = fingerprintOf(text, await readKeys(this.loaded.keyPaths, this.readFile));
    if (fingerprint === this.loaded.fingerprint) {
      this.failedFingerprint = undefined;
      return;
    }
    let next: Loaded;
    try {
      next = await load(text, this.readFile);
    } catch (err) {
      if (!(err instanceof PolicyError)) throw err;
      this.fail(err, fingerprint, hooks);
      return;
    }
    this.loaded = next;
    this.failedFingerprint = undefined;
    this.reloads.applied++;
    hooks.onChange();
  }

  private fail(err: PolicyError, fingerprint: string, hooks: PolicyReloadHooks): void {
    if (this.failedFingerprint === fingerprint) return;
    this.failedFingerprint = fingerprint;
    this.reloads.failed++;
    hooks.onError(err);
  }

  /** Reloads every intervalMs on clock until the returned function is called. */
  watch(clock: Pick<Clock, 'setTimer'>, intervalMs: number, hooks: PolicyReloadHooks): () => void {
    return pollEvery(
      clock,
      intervalMs,
      () => this.reload(hooks),
      (err: unknown) => hooks.onError(new PolicyError(String(err))),
    );
  }
}

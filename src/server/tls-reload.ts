// Reloading the content server's certificate when its files change. A Secret mounted as a volume
// is updated by the kubelet through a symlink swap (`..data` points to a new timestamped
// directory), so the paths stay and their content changes: the files are read again on an
// interval of the injected clock and compared by content (a few KB). A new pair is checked first
// (tls.ts): one that cannot serve keeps the previous pair in force and is reported once.
import { pollEvery, type Clock } from '../util/clock.js';
import type { ReadFile, ServingPair, TlsFiles } from './tls.js';
import { TlsPairError, checkPair, pairFingerprint, readPairFiles } from './tls.js';

export interface CertificateReloadHooks {
  /** A new pair passed the checks: serve it (https.Server.setSecureContext). */
  apply(pair: ServingPair): void;
  /** The files changed but the new pair cannot serve: the previous one stays. */
  onError(err: TlsPairError): void;
}

interface Refusal {
  err: TlsPairError;
  fingerprint: string;
}

export class ServingCertificate {
  /** Reloads that put a new pair in force, and those refused. */
  readonly reloads = { applied: 0, failed: 0 };
  /** The fingerprint of the last content refused (reported once, not at every poll). */
  private failedFingerprint: string | undefined;

  constructor(
    readonly files: TlsFiles,
    private pair: ServingPair,
    private readonly clock: Pick<Clock, 'date'>,
    private readonly readFile?: ReadFile,
  ) {}

  current(): ServingPair {
    return this.pair;
  }

  /** Reads the files again; applies a new pair when their content changed and it can serve. */
  async reload(hooks: CertificateReloadHooks): Promise<void> {
    let refused = await this.tryRead(hooks);
    // The kubelet swaps both files at once, but the two reads are not one: a read between the
    // swap can pair the old certificate with the new key. Such a pair is read again once.
    if (refused) refused = await this.tryRead(hooks);
    if (refused) this.fail(refused, hooks);
  }

  /** undefined: unchanged or applied; else why the new content was refused (not reported yet). */
  private async tryRead(hooks: CertificateReloadHooks): Promise<Refusal | undefined> {
    let bytes;
    try {
      bytes = await readPairFiles(this.files, this.readFile);
    } catch (err) {
      if (err instanceof TlsPairError) return { err, fingerprint: 'unreadable' };
      throw err;
    }
    const fingerprint = pairFingerprint(bytes.cert, bytes.key);
    if (fingerprint === this.pair.fingerprint) {
      this.failedFingerprint = undefined;
      return undefined;
    }
    let next: ServingPair;
    try {
      next = checkPair(this.files, bytes.cert, bytes.key, this.clock.date());
      hooks.apply(next);
    } catch (err) {
      const e =
        err instanceof TlsPairError
          ? err
          : new TlsPairError(`--tls-cert-file ${this.files.certFile}: ${String(err)}`);
      return { err: e, fingerprint };
    }
    this.pair = next;
    this.failedFingerprint = undefined;
    this.reloads.applied++;
    return undefined;
  }

  private fail({ err, fingerprint }: Refusal, hooks: CertificateReloadHooks): void {
    if (this.failedFingerprint === fingerprint) return;
    this.failedFingerprint = fingerprint;
    this.reloads.failed++;
    hooks.onError(err);
  }

  /** Reloads every intervalMs on clock until the returned function is called. */
  watch(
    clock: Pick<Clock, 'setTimer'>,
    intervalMs: number,
    hooks: CertificateReloadHooks,
  ): () => void {
    return pollEvery(
      clock,
      intervalMs,
      () => this.reload(hooks),
      (err: unknown) => hooks.onError(new TlsPairError(String(err))),
    );
  }
}

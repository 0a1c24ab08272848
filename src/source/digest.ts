// Content digests: computing them, and verifying a stream against a descriptor's digest and size
// while it flows (the size is enforced as bytes arrive, so an endless body is cut off early).
import { createHash, type Hash } from 'node:crypto';
import { Transform, type TransformCallback } from 'node:stream';
import { retryable } from './errors.js';

export function hashAlgorithm(digest: string): 'sha256' | 'sha512' {
  const alg = digest.slice(0, digest.indexOf(':'));
  if (alg === 'sha256' || alg === 'sha512') return alg;
  throw retryable('BadResponse', `unsupported digest algorithm "${alg}"`);
}

export function digestOf(data: Buffer | string, algorithm: 'sha256' | 'sha512' = 'sha256'): string {
  return `${algorithm}:${createHash(algorithm).update(data).digest('hex')}`;
}

/** Passes bytes through, failing when more than `size` arrive or the digest differs at the end. */
export class VerifyingStream extends Transform {
  private readonly hash: Hash;
  private n = 0;

  constructor(
    private readonly digest: string,
    private readonly size: number | undefined,
    private readonly what: string,
    private readonly onBytes?: (n: number) => void,
  ) {
    super();
    this.hash = createHash(hashAlgorithm(digest));
  }

  get bytes(): number {
    return this.n;
  }

  override _transform(chunk: Buffer, _enc: BufferEncoding, cb: TransformCallback): void {
    this.n += chunk.length;
    this.onBytes?.(chunk.length);
    if (this.size !== undefined && this.n > this.size) {
      cb(
        retryable(
          'SizeMismatch',
          `${this.what}: size mismatch: got at least ${this.n} bytes, descriptor says ${this.size}`,
        ),
      );
      return;
    }
    this.hash.update(chunk);
    cb(null, chunk);
  }

  override _flush(cb: TransformCallback): void {
    if (this.size !== undefined && this.n !== this.size) {
      cb(
        retryable(
          'SizeMismatch',
          `${this.what}: size mismatch: got ${this.n} bytes, descriptor says ${this.size}`,
        ),
      );
      return;
    }
    const got = `${this.digest.slice(0, this.digest.indexOf(':'))}:${this.hash.digest('hex')}`;
    if (got !== this.digest) {
      cb(
        retryable(
          'DigestMismatch',
          `${this.what}: digest mismatch: content is ${got}, expected ${this.digest}`,
        ),
      );
      return;
    }
    cb();
  }
}

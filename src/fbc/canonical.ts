// Canonical blob form and hashes (SPEC §3.2). The canonical form is the blob as compact JSON
// with object keys sorted (by UTF-16 code units, as fast-json-stable-stringify sorts), numbers
// as JavaScript prints float64 values, strings escaped as JSON.stringify escapes them.
import { createHash } from 'node:crypto';
import stringify from 'fast-json-stable-stringify';

export function canonicalize(value: unknown): string {
  return stringify(value);
}

export function sha256Hex(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

/** `sha256:<hex>` of the canonical form's UTF-8 bytes. */
export function blobHash(canonical: string): string {
  return `sha256:${sha256Hex(canonical)}`;
}

/**
 * The catalog's contentHash: sha256 over its blob hashes (`sha256:<hex>` strings) sorted
 * bytewise, each followed by `\n`. File layout and blob order do not change it.
 */
export class CatalogHasher {
  private readonly hashes: string[] = [];

  add(blobHash: string): void {
    this.hashes.push(blobHash);
  }

  get count(): number {
    return this.hashes.length;
  }

  digest(): string {
    const h = createHash('sha256');
    for (const x of [...this.hashes].sort()) h.update(`${x}\n`);
    return `sha256:${h.digest('hex')}`;
  }
}

// Canonical blob form and hashes (SPEC §3.2). The canonical form is the blob as compact JSON
// with object keys sorted by UTF-16 code units (Array.prototype.sort, the same output as
// fast-json-stable-stringify), numbers as JavaScript prints float64 values, strings escaped as
// JSON.stringify escapes them. Iterative, so that nesting up to Go's limit (10000) is fine.
import { createHash } from 'node:crypto';

/** `n` counts the members written so far (undefined values are skipped, as JSON.stringify does). */
type Frame =
  | { array: unknown[]; i: number }
  | { object: Record<string, unknown>; keys: string[]; i: number; n: number };

function scalar(v: unknown): string {
  if (typeof v === 'string') return JSON.stringify(v);
  if (typeof v === 'number') return Number.isFinite(v) ? String(v) : 'null';
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  if (v === null || v === undefined) return 'null';
  throw new TypeError(`cannot canonicalize a ${typeof v}`);
}

function open(v: unknown, stack: Frame[]): string | undefined {
  if (typeof v !== 'object' || v === null) return undefined;
  if (Array.isArray(v)) {
    stack.push({ array: v, i: 0 });
    return '[';
  }
  const object = v as Record<string, unknown>;
  stack.push({ object, keys: Object.keys(object).sort(), i: 0, n: 0 });
  return '{';
}

export function canonicalize(value: unknown): string {
  const stack: Frame[] = [];
  let out = open(value, stack) ?? scalar(value);
  while (stack.length > 0) {
    const f = stack[stack.length - 1]!;
    if ('array' in f) {
      if (f.i >= f.array.length) {
        out += ']';
        stack.pop();
        continue;
      }
      if (f.i > 0) out += ',';
      const v = f.array[f.i++];
      out += open(v, stack) ?? scalar(v);
      continue;
    }
    let v: unknown;
    let key: string | undefined;
    while (f.i < f.keys.length) {
      key = f.keys[f.i]!;
      v = f.object[key];
      if (v !== undefined) break;
      f.i++;
      key = undefined;
    }
    if (key === undefined) {
      out += '}';
      stack.pop();
      continue;
    }
    out += `${f.n > 0 ? ',' : ''}${JSON.stringify(key)}:`;
    f.n++;
    f.i++;
    out += open(v, stack) ?? scalar(v);
  }
  return out;
}

/** Strings longer than this are hashed in slices of this many UTF-16 units. */
const HASH_SLICE = 1 << 20;

/**
 * sha256 of `data` (a string: of its UTF-8 bytes). A long string is hashed in slices, so that
 * its UTF-8 encoding is never held whole: a blob near the document cap would otherwise need a
 * second copy of itself just to be hashed. A slice never ends inside a surrogate pair.
 */
export function sha256Hex(data: string | Uint8Array): string {
  const h = createHash('sha256');
  if (typeof data !== 'string' || data.length <= HASH_SLICE) return h.update(data).digest('hex');
  for (let i = 0; i < data.length;) {
    let end = Math.min(i + HASH_SLICE, data.length);
    const last = data.charCodeAt(end - 1);
    if (end < data.length && last >= 0xd800 && last <= 0xdbff) end--;
    h.update(data.slice(i, end));
    i = end;
  }
  return h.digest('hex');
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

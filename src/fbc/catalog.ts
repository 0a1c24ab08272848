// Reads a catalog directory into a stream of blobs: walk (lexical, .indexignore), parse each
// file, canonicalize and hash each blob, give it its identity, and apply the duplicate rules.
// Blobs are yielded as they are parsed; if the stream throws, the catalog is invalid as a whole
// and the caller must discard what it received (no partial catalog is ever valid).
import { closeSync, fstatSync, openSync, readFileSync } from 'node:fs';
import { open as openFile } from 'node:fs/promises';
import path from 'node:path';
import { blobHash, canonicalize } from '../api/v1/index.js';
import { FbcError, formatPosition } from './errors.js';
import type { SourcePosition } from './errors.js';
import { identityKey } from './identity.js';
import type { BlobIdentity } from './identity.js';
import { DEFAULT_PARSE_LIMITS, parseDocuments } from './parse.js';
import type { ParseLimits, ParsedDocument } from './parse.js';
import { LargeGarbage } from '../util/large-garbage.js';
import { quoteText } from '../util/terminal-text.js';
import { Yielder } from '../util/yielder.js';
import { fsDirReader, listCatalogFiles } from './walk.js';
import type { DirReader } from './walk.js';

export interface Blob {
  identity: BlobIdentity;
  schema: string;
  package?: string;
  name?: string;
  /** The blob as a JSON object. */
  content: Record<string, unknown>;
  /** Canonical form (sorted keys, compact). */
  canonical: string;
  /** `sha256:<hex>` of `canonical`. */
  hash: string;
  /** UTF-8 size of `canonical`. */
  bytes: number;
  position: SourcePosition;
}

/** Schemas whose identity must be unique (operator-registry's model rejects repeats). */
const UNIQUE_IDENTITY_SCHEMAS: ReadonlySet<string> = new Set([
  'olm.package',
  'olm.channel',
  'olm.bundle',
  'olm.deprecations',
]);

export interface ReadCatalogOptions {
  /** The ClusterCatalog name: part of every identity. */
  catalog: string;
  limits?: ParseLimits;
  /** Directory access (default: the file system under the directory). */
  reader?: DirReader;
  /** Opens a file for streaming (default: chunked reads of the file under the directory). */
  open?: (file: string) => AsyncIterable<Uint8Array>;
  /** Aborts the read; checked whenever the event loop is given a turn. */
  signal?: AbortSignal | undefined;
  /** Collects large blobs' garbage (default: one per process, src/util/large-garbage.ts). */
  largeGarbage?: LargeGarbage;
}

const processLargeGarbage = new LargeGarbage();

/**
 * Bytes of canonical blobs parsed between two turns of the event loop (a file counts as
 * FILE_COST bytes more): a few milliseconds of parsing, so that /healthz, content serving and
 * other catalogs' I/O run while a large catalog is parsed. One document (at most 8 MiB) is
 * parsed in one go: the longest single step (docs/bounds.md).
 */
export const PARSE_BYTES_PER_TURN = 256 * 1024;
const FILE_COST = 1024;

function describe(id: BlobIdentity): string {
  const parts = [`schema=${quoteText(id.schema)}`];
  if (id.package !== undefined) parts.push(`package=${quoteText(id.package)}`);
  if (id.name !== undefined) parts.push(`name=${quoteText(id.name)}`);
  return parts.join(' ');
}

/**
 * Applies the identity rules to a stream of blobs; keeps one small entry per blob (identity key,
 * hash, position), never content.
 */
export class IdentityRegistry {
  private readonly first = new Map<string, { hash: string; where: string }>();
  private readonly exact = new Map<string, string>();

  constructor(private readonly catalog: string) {}

  /** The identity of a blob, or an FbcError for a duplicate. */
  identify(
    schema: string,
    pkg: string,
    name: string,
    hash: string,
    position: SourcePosition,
  ): BlobIdentity {
    const id: BlobIdentity = { catalog: this.catalog, schema };
    if (pkg !== '') id.package = pkg;
    if (name !== '') id.name = name;
    const hex = hash.slice('sha256:'.length);
    if (pkg === '' && name === '') id.disambiguator = hex;
    const key = identityKey(id);
    const where = formatPosition(position);
    const exactKey = `${key}\n${hash}`;
    const dup = this.exact.get(exactKey);
    if (dup !== undefined)
      throw new FbcError(`duplicate blob (${describe(id)}): identical to the blob at ${dup}`, {
        position,
      });
    this.exact.set(exactKey, where);
    const seen = this.first.get(key);
    if (seen === undefined) {
      this.first.set(key, { hash, where });
      return id;
    }
    if (UNIQUE_IDENTITY_SCHEMAS.has(schema))
      throw new FbcError(`duplicate ${describe(id)}: also defined at ${seen.where}`, { position });
    // A repeated identity of a custom schema: only the content tells these blobs apart.
    return { ...id, disambiguator: hex };
  }
}

const READ_CHUNK_BYTES = 256 * 1024;

/** A file's bytes in chunks of at most READ_CHUNK_BYTES (plain reads: cheaper than a stream per file). */
/**
 * Files up to this size are read in one synchronous call. A catalog may hold 100,000 files, most
 * of them small: three asynchronous calls (open, read, close) cost a thread-pool round trip
 * each, which made 100,000 empty files take 20 to 32 s to parse; read synchronously, about 1 s
 * (bench/unpack-entries.ts). 64 KiB from the local disk blocks the event loop for microseconds.
 */
const SMALL_FILE_BYTES = 64 * 1024;

/** The whole file if it is small, else undefined (then it is read in chunks). */
function readSmallFile(file: string): Buffer | undefined {
  const fd = openSync(file, 'r');
  try {
    return fstatSync(fd).size <= SMALL_FILE_BYTES ? readFileSync(fd) : undefined;
  } finally {
    closeSync(fd);
  }
}

async function* readChunks(file: string): AsyncGenerator<Uint8Array> {
  const small = readSmallFile(file);
  if (small !== undefined) {
    if (small.length > 0) yield small;
    return;
  }
  const fh = await openFile(file, 'r');
  try {
    for (;;) {
      const buf = Buffer.allocUnsafe(READ_CHUNK_BYTES);
      const { bytesRead } = await fh.read(buf, 0, READ_CHUNK_BYTES, null);
      if (bytesRead === 0) return;
      yield bytesRead === READ_CHUNK_BYTES ? buf : buf.subarray(0, bytesRead);
    }
  } finally {
    await fh.close();
  }
}

function defaultOpen(root: string): (file: string) => AsyncIterable<Uint8Array> {
  return (file) => readChunks(path.join(root, file));
}

/** A parsed document as a blob: canonical form, hash and identity. Throws FbcError. */
function toBlob(doc: ParsedDocument, registry: IdentityRegistry): Blob {
  if (doc.value === null || doc.meta.schema === '')
    throw new FbcError(
      doc.value === null
        ? 'missing schema: the document is empty'
        : 'missing schema: a blob must have a non-empty "schema" string',
      { position: doc.position },
    );
  let canonical: string;
  try {
    canonical = canonicalize(doc.value);
  } catch (cause) {
    throw new FbcError('cannot canonicalize the blob (nesting too deep)', {
      position: doc.position,
      cause,
    });
  }
  const hash = blobHash(canonical);
  const identity = registry.identify(
    doc.meta.schema,
    doc.meta.package,
    doc.meta.name,
    hash,
    doc.position,
  );
  const blob: Blob = {
    identity,
    schema: doc.meta.schema,
    content: doc.value,
    canonical,
    hash,
    bytes: Buffer.byteLength(canonical),
    position: doc.position,
  };
  if (identity.package !== undefined) blob.package = identity.package;
  if (identity.name !== undefined) blob.name = identity.name;
  return blob;
}

/** The blobs of a catalog directory, in walk order then file order. Throws FbcError. */
export async function* readCatalog(dir: string, opts: ReadCatalogOptions): AsyncGenerator<Blob> {
  const reader = opts.reader ?? fsDirReader(dir);
  const open = opts.open ?? defaultOpen(dir);
  const limits = opts.limits ?? DEFAULT_PARSE_LIMITS;
  const registry = new IdentityRegistry(opts.catalog);
  const turns = new Yielder(PARSE_BYTES_PER_TURN, opts.signal);
  const largeGarbage = opts.largeGarbage ?? processLargeGarbage;
  for (const file of await listCatalogFiles(reader, { signal: opts.signal })) {
    await turns.charge(FILE_COST);
    try {
      for await (let doc of parseDocuments(open(file), file, limits)) {
        let blob: Blob | undefined = toBlob(doc, registry);
        // Neither this frame nor the parser keeps a document while the consumer has it, so a
        // collection after it can free all its copies (src/util/large-garbage.ts).
        doc = undefined as unknown as ParsedDocument;
        const size = blob.bytes;
        yield blob;
        blob = undefined;
        largeGarbage.note(size);
        await turns.charge(size);
      }
    } catch (err) {
      if (err instanceof FbcError) throw err;
      if (opts.signal?.aborted) throw opts.signal.reason;
      const code = (err as NodeJS.ErrnoException).code;
      throw new FbcError(code ? `cannot read file (${code})` : 'cannot read file', {
        file,
        retryClass: 'io',
        cause: err,
      });
    }
  }
}

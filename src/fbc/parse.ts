// Parses one FBC file as operator-registry does (k8s.io/apimachinery's YAMLOrJSONDecoder): a
// file whose first non-space byte within 4096 bytes is `{` is a stream of JSON values, otherwise
// `---`-separated YAML; a JSON stream that fails on its first or second value is re-read as YAML
// from that value on (and when that fails too, the JSON error is reported). Streams: one
// document is in memory at a time.
import { ByteSource } from './byte-source.js';
import type { StreamPoint } from './byte-source.js';
import { FbcError } from './errors.js';
import type { SourcePosition } from './errors.js';
import { JsonSplitter } from './json-split.js';
import { findJsonSyntaxError } from './json-syntax.js';
import { hasNonFinite, wellFormedDeep } from './json-value.js';
import { extractMeta } from './meta.js';
import type { Meta } from './meta.js';
import { decodeUtf8 } from './utf8.js';
import { releaseBuffer } from '../util/buffers.js';
import { DEFAULT_YAML_LIMITS, YamlDocError, yamlDocToJSON } from './yaml-doc.js';
import { YAML_NODE_WEIGHT, YamlSplitter } from './yaml-split.js';

export interface ParseLimits {
  /** A bigger file is an error (checked while streaming). */
  maxFileBytes: number;
  /**
   * A bigger single JSON value or YAML document (or line of one) is an error; also the budget
   * of a YAML document's decoded size with its aliases expanded.
   */
  maxDocumentBytes: number;
  /**
   * Values in one JSON value or YAML document (YAML: an upper bound counted from indicator
   * characters). Parsing builds them all at once: a few megabytes of `1,1,1…` exhaust the heap.
   */
  maxDocumentNodes: number;
  /**
   * Nesting limit for JSON. Go's encoding/json (opm) stops at 10000, and so does the
   * apiserver's decoder, which counts the two levels a blob sits under in its object
   * (spec.content): 9998 is the deepest blob the apiserver accepts.
   */
  maxDepth: number;
  /**
   * Nesting limit for YAML source: js-yaml's parser is recursive (it overflows the stack near
   * 1600). With aliases expanded, a YAML document may nest up to maxDepth.
   */
  maxYamlDepth: number;
  /** Nodes that YAML aliases may add to one document. */
  maxAliasExpandedNodes: number;
}

export const DEFAULT_PARSE_LIMITS: ParseLimits = {
  maxFileBytes: 1 << 30,
  maxDocumentBytes: 8 << 20,
  maxDocumentNodes: 200_000,
  maxDepth: 9998,
  maxYamlDepth: 1000,
  maxAliasExpandedNodes: DEFAULT_YAML_LIMITS.maxAliasExpandedNodes,
};

/** One decoded document of a file. `value` is a JSON object, or null for an empty document. */
export interface ParsedDocument {
  value: Record<string, unknown> | null;
  meta: Meta;
  position: SourcePosition;
  /** Size of the document's source text in bytes. */
  sourceBytes: number;
}

const JSON_SNIFF_BYTES = 4096;
const BOM = [0xef, 0xbb, 0xbf];

function toPosition(file: string, p: StreamPoint): SourcePosition {
  return { file, line: p.line, column: p.offset - p.lineStart + 1, offset: p.offset };
}

/** Position of a UTF-16 index into the text of a document that starts at `start`. */
function positionIn(file: string, start: StreamPoint, text: string, index: number): SourcePosition {
  const prefix = text.slice(0, Math.max(0, Math.min(index, text.length)));
  const lastNl = prefix.lastIndexOf('\n');
  const offset = start.offset + Buffer.byteLength(prefix);
  if (lastNl < 0)
    return {
      file,
      line: start.line,
      column: start.offset - start.lineStart + Buffer.byteLength(prefix) + 1,
      offset,
    };
  let lines = 0;
  for (let i = prefix.indexOf('\n'); i >= 0; i = prefix.indexOf('\n', i + 1)) lines++;
  return {
    file,
    line: start.line + lines,
    column: Buffer.byteLength(prefix.slice(lastNl + 1)) + 1,
    offset,
  };
}

/** Position of a byte offset into a document's bytes. */
function positionAtByte(
  file: string,
  start: StreamPoint,
  bytes: Buffer,
  at: number,
): SourcePosition {
  let line = start.line;
  let lineStart = start.lineStart;
  for (let i = bytes.indexOf(0x0a); i >= 0 && i < at; i = bytes.indexOf(0x0a, i + 1)) {
    line++;
    lineStart = start.offset + i + 1;
  }
  return toPosition(file, { offset: start.offset + at, line, lineStart });
}

async function* limitFileSize(
  chunks: AsyncIterable<Uint8Array>,
  file: string,
  max: number,
): AsyncGenerator<Uint8Array> {
  let total = 0;
  for await (const c of chunks) {
    total += c.length;
    if (total > max) throw new FbcError(`file is larger than the limit of ${max} bytes`, { file });
    yield c;
  }
}

// A number too large for float64 (JSON.parse gives ±Infinity; Go's encoding/json refuses it).
const MAYBE_HUGE_NUMBER = /[eE]\+?0*[1-9][0-9]{2}|[0-9]{300}/;
const MAYBE_LONE_SURROGATE = /\\u[dD][89a-fA-F]/;

/**
 * The byte offset at which an upper bound of the document's node count passes `max`, or -1.
 * Every YAML node but the first needs an indicator before it: `-` one; `[`, `{`, `:`, `?` and
 * `,` up to two (a collection and its first entry; a key and its value; in a flow mapping, a
 * key and its implied null value). Checked before
 * parsing, because js-yaml's parser builds an event per node before any other check can run.
 */
function yamlNodesPastLimit(bytes: Buffer, max: number): number {
  if (bytes.length < max / 2) return -1;
  let n = 1;
  for (let i = 0; i < bytes.length; i++) {
    const w = YAML_NODE_WEIGHT[bytes[i]!]!;
    if (w !== 0 && (n += w) > max) return i;
  }
  return -1;
}

type Decoded = { value: unknown; meta: Meta } | { error: string; position: SourcePosition };

function decodeJsonValue(file: string, bytes: Buffer, start: StreamPoint): Decoded {
  const d = decodeUtf8(bytes);
  if ('invalidAt' in d)
    return { error: 'invalid UTF-8', position: positionAtByte(file, start, bytes, d.invalidAt) };
  let value: unknown;
  try {
    value = JSON.parse(d.text);
  } catch (err) {
    const p = findJsonSyntaxError(d.text);
    if (p)
      return {
        error: `invalid JSON: ${p.reason}`,
        position: positionIn(file, start, d.text, p.index),
      };
    throw err;
  }
  if (MAYBE_HUGE_NUMBER.test(d.text) && hasNonFinite(value))
    return {
      error: 'invalid JSON: a number is out of the range of a float64',
      position: positionIn(file, start, d.text, 0),
    };
  if (MAYBE_LONE_SURROGATE.test(d.text)) value = wellFormedDeep(value);
  const m = extractMeta(value);
  if ('error' in m) return { error: m.error, position: positionIn(file, start, d.text, 0) };
  return { value, meta: m.meta };
}

function decodeYamlDoc(
  file: string,
  bytes: Buffer,
  start: StreamPoint,
  limits: ParseLimits,
): Decoded {
  const tooMany = yamlNodesPastLimit(bytes, limits.maxDocumentNodes);
  if (tooMany >= 0)
    return {
      error: `a YAML document has more than ${limits.maxDocumentNodes} nodes (counted from its "-,:?[{" characters)`,
      position: positionAtByte(file, start, bytes, tooMany),
    };
  const d = decodeUtf8(bytes);
  if ('invalidAt' in d)
    return { error: 'invalid UTF-8', position: positionAtByte(file, start, bytes, d.invalidAt) };
  let value: unknown;
  try {
    value = yamlDocToJSON(d.text, {
      maxDepth: limits.maxYamlDepth,
      maxAliasExpandedNodes: limits.maxAliasExpandedNodes,
      maxExpandedBytes: limits.maxDocumentBytes,
      maxExpandedDepth: limits.maxDepth,
    });
  } catch (err) {
    if (err instanceof YamlDocError)
      return {
        error: `invalid YAML: ${err.reason}`,
        position: positionIn(file, start, d.text, err.offset),
      };
    throw err;
  }
  const m = extractMeta(value);
  if ('error' in m) return { error: m.error, position: positionIn(file, start, d.text, 0) };
  return { value, meta: m.meta };
}

function document(
  decoded: { value: unknown; meta: Meta },
  position: SourcePosition,
  sourceBytes: number,
): ParsedDocument {
  return {
    value: decoded.value as Record<string, unknown> | null,
    meta: decoded.meta,
    position,
    sourceBytes,
  };
}

async function* yamlDocuments(
  src: ByteSource,
  file: string,
  start: StreamPoint,
  limits: ParseLimits,
  firstError?: FbcError,
): AsyncGenerator<ParsedDocument> {
  const splitter = new YamlSplitter(src, start, limits.maxDocumentBytes, limits.maxDocumentNodes);
  let first = true;
  for (;;) {
    const piece = await splitter.next();
    if (!piece) return;
    if (piece.kind === 'error')
      throw (
        (first && firstError) ||
        new FbcError(piece.reason, { position: toPosition(file, piece.at) })
      );
    const decoded = decodeYamlDoc(file, piece.bytes, piece.start, limits);
    if ('error' in decoded)
      throw (first && firstError) || new FbcError(decoded.error, { position: decoded.position });
    first = false;
    const sourceBytes = piece.bytes.length;
    // The splitter's copy, read by nothing else now that it is decoded (util/buffers.ts).
    releaseBuffer(piece.bytes);
    yield document(decoded, toPosition(file, piece.start), sourceBytes);
  }
}

async function* jsonDocuments(
  src: ByteSource,
  file: string,
  start: StreamPoint,
  limits: ParseLimits,
): AsyncGenerator<ParsedDocument> {
  const splitter = new JsonSplitter(
    src,
    start,
    limits.maxDocumentBytes,
    limits.maxDepth,
    limits.maxDocumentNodes,
  );
  let count = 0;
  for (;;) {
    const piece = await splitter.next();
    if (!piece) return;
    let error: FbcError;
    let bytes: Buffer;
    let from: StreamPoint;
    if (piece.kind === 'error') {
      error = new FbcError(piece.reason, { position: toPosition(file, piece.at) });
      if (piece.tooLarge) throw error;
      [bytes, from] = [piece.bytes, piece.start];
    } else {
      const decoded = decodeJsonValue(file, piece.bytes, piece.start);
      if (!('error' in decoded)) {
        count++;
        const sourceBytes = piece.bytes.length;
        if (piece.owned) releaseBuffer(piece.bytes);
        yield document(decoded, toPosition(file, piece.start), sourceBytes);
        continue;
      }
      error = new FbcError(decoded.error, { position: decoded.position });
      [bytes, from] = [piece.bytes, piece.start];
    }
    // Like apimachinery: after at most one good value, retry the rest as YAML.
    if (count > 1) throw error;
    src.unshift(splitter.remainder());
    src.unshift(bytes);
    yield* yamlDocuments(src, file, from, limits, error);
    return;
  }
}

/**
 * The documents of one file, in order. Throws FbcError (retryClass 'content') naming the file
 * and position on the first problem; the caller must discard what it got from a failed file.
 */
export async function* parseDocuments(
  chunks: AsyncIterable<Uint8Array>,
  file: string,
  limits: ParseLimits = DEFAULT_PARSE_LIMITS,
): AsyncGenerator<ParsedDocument> {
  const src = new ByteSource(limitFileSize(chunks, file, limits.maxFileBytes));
  try {
    const headParts: Buffer[] = [];
    let headLen = 0;
    while (headLen < JSON_SNIFF_BYTES) {
      const c = await src.next();
      if (!c) break;
      headParts.push(c);
      headLen += c.length;
    }
    const head = Buffer.concat(headParts, headLen);
    const origin: StreamPoint = { offset: 0, line: 1, lineStart: 0 };
    if (head.length >= 3 && head[0] === BOM[0] && head[1] === BOM[1] && head[2] === BOM[2]) {
      // A BOM is not space, so operator-registry reads such a file as YAML (which skips the BOM).
      src.unshift(head.subarray(3));
      yield* yamlDocuments(src, file, { offset: 3, line: 1, lineStart: 3 }, limits);
      return;
    }
    src.unshift(head);
    let i = 0;
    const sniff = Math.min(head.length, JSON_SNIFF_BYTES);
    while (i < sniff && (head[i] === 0x20 || (head[i]! >= 0x09 && head[i]! <= 0x0d))) i++;
    if (i < sniff && head[i] === 0x7b) yield* jsonDocuments(src, file, origin, limits);
    else yield* yamlDocuments(src, file, origin, limits);
  } finally {
    await src.close();
  }
}

// Builds the JSON value of one YAML document from js-yaml's event stream with the semantics of
// go.yaml.in/yaml/v2 + sigs.k8s.io/yaml (what operator-registry uses), not js-yaml's own:
// YAML 1.1 scalars, keys stringified the Go way, merge keys applied in order, last duplicate
// key wins, and goyaml's guard against alias bombs.
import { EVENT_ID, getScalarValue, parseEvents, SCALAR_STYLE } from 'js-yaml';
import type { Event, ScalarEvent } from 'js-yaml';
import {
  BINARY_TAG,
  MERGE_TAG,
  TAG_PREFIX,
  resolvePlain,
  resolveTagged,
  scalarToJSON,
  scalarToKey,
} from './yaml-scalar.js';
import type { GoScalar } from './yaml-scalar.js';
import { setOwn, wellFormed } from './json-value.js';

/** An error inside one YAML document; `offset` is a UTF-16 index into the document's text. */
export class YamlDocError extends Error {
  constructor(
    readonly reason: string,
    readonly offset: number,
  ) {
    super(reason);
  }
}

export interface YamlDocLimits {
  /** Collection nesting limit (goyaml v2: 10000). */
  maxDepth: number;
  /** Upper bound on nodes produced by alias expansion, on top of goyaml's alias-ratio rule. */
  maxAliasExpandedNodes: number;
  /**
   * Upper bound on the decoded document's size, aliases expanded: the bytes of its scalars plus
   * one per node. Aliases are resolved by reference, but canonicalizing, hashing and serving
   * the blob write every expansion out, so a few aliases of one big scalar would otherwise
   * become gigabytes. Without aliases a document's decoded size is at most its source size.
   */
  maxExpandedBytes: number;
  /**
   * Upper bound on the decoded document's nesting, aliases expanded. The parser's maxDepth
   * bounds the source; a chain of anchors, each nesting the previous one, goes deeper.
   */
  maxExpandedDepth: number;
}

export const DEFAULT_YAML_LIMITS: YamlDocLimits = {
  maxDepth: 10000,
  maxAliasExpandedNodes: 1_000_000,
  maxExpandedBytes: 8 << 20,
  maxExpandedDepth: 9998,
};

interface Anchored {
  value: unknown;
  scalar: GoScalar | undefined;
  nodes: number;
  aliases: number;
  bytes: number;
  /** Levels of collections in the value: 0 for a scalar. */
  height: number;
}

type Frame =
  | {
      kind: 'seq';
      value: unknown[];
      anchor: string | undefined;
      start: number;
      nodes: number;
      aliases: number;
      bytes: number;
      height: number;
    }
  | {
      kind: 'map';
      value: Record<string, unknown>;
      anchor: string | undefined;
      start: number;
      nodes: number;
      aliases: number;
      bytes: number;
      height: number;
      /** undefined: expecting a key; 'merge': a `<<` key; otherwise the stringified key. */
      key: { merge: true } | { name: string } | undefined;
    };

// goyaml v2's alias-ratio heuristic (decode.go allowedAliasRatio).
function allowedAliasRatio(decodeCount: number): number {
  const low = 400000;
  const high = 4000000;
  if (decodeCount <= low) return 0.99;
  if (decodeCount >= high) return 0.1;
  return 0.99 - 0.89 * ((decodeCount - low) / (high - low));
}

function tagOf(src: string, start: number, end: number): string {
  if (start < 0) return '';
  const t = src.slice(start, end);
  if (t.startsWith('!!')) return TAG_PREFIX + t.slice(2);
  if (t.startsWith('!<') && t.endsWith('>')) return t.slice(2, -1);
  return t;
}

const BASE64_RE = /^[A-Za-z0-9+/]*={0,2}$/;

function decodeBinary(text: string): string {
  // Go's base64.StdEncoding ignores \r and \n, nothing else; padding is required.
  const b64 = text.replace(/[\r\n]/g, '');
  if (b64.length % 4 !== 0 || !BASE64_RE.test(b64))
    throw new Error('!!binary value contains invalid base64 data');
  // goyaml keeps the bytes as a Go string; encoding/json replaces invalid UTF-8 with U+FFFD.
  return Buffer.from(b64, 'base64').toString('utf8');
}

function resolveScalar(
  src: string,
  ev: ScalarEvent,
): { scalar: GoScalar; merge: boolean; size: number } {
  const text = getScalarValue(src, ev);
  return { ...resolveScalarText(src, ev, text), size: text.length + 1 };
}

function resolveScalarText(
  src: string,
  ev: ScalarEvent,
  text: string,
): { scalar: GoScalar; merge: boolean } {
  const tag = tagOf(src, ev.tagStart, ev.tagEnd);
  const plain = ev.style === SCALAR_STYLE.PLAIN;
  if (tag === '') {
    if (!plain) return { scalar: { kind: 'str', value: wellFormed(text) }, merge: false };
    return { scalar: resolvePlain(text), merge: text === '<<' };
  }
  if (tag === MERGE_TAG && text === '<<')
    return { scalar: { kind: 'str', value: text }, merge: true };
  if (tag === BINARY_TAG)
    return { scalar: { kind: 'str', value: decodeBinary(text) }, merge: false };
  if (tag === '!') return { scalar: { kind: 'str', value: wellFormed(text) }, merge: false };
  const s = resolveTagged(tag, text);
  return {
    scalar: s.kind === 'str' ? { kind: 'str', value: wellFormed(s.value) } : s,
    merge: false,
  };
}

function isMapping(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function mergeInto(target: Record<string, unknown>, source: Record<string, unknown>): void {
  for (const k of Object.keys(source)) setOwn(target, k, source[k]);
}

/**
 * The JSON value of the first YAML document in `src` (null when it holds none), or a
 * YamlDocError. `src` is one `---`-separated chunk of a file, as operator-registry splits them.
 */
export function yamlDocToJSON(src: string, limits: YamlDocLimits = DEFAULT_YAML_LIMITS): unknown {
  let events: Event[];
  try {
    events = parseEvents(src, { maxDepth: limits.maxDepth });
  } catch (err) {
    const e = err as { reason?: string; mark?: { position: number }; message?: string };
    if (err instanceof RangeError) throw new YamlDocError('nesting too deep', 0);
    throw new YamlDocError(e.reason ?? e.message ?? String(err), e.mark?.position ?? 0);
  }
  try {
    return construct(src, events, limits);
  } catch (err) {
    if (err instanceof YamlDocError) throw err;
    if (err instanceof RangeError) throw new YamlDocError('nesting too deep', 0);
    throw err;
  }
}

function construct(src: string, events: Event[], limits: YamlDocLimits): unknown {
  const anchors = new Map<string, Anchored>();
  const stack: Frame[] = [];
  let decodeCount = 0;
  let aliasCount = 0;
  let expandedByAliases = 0;
  // The decoded size so far, aliases expanded (see YamlDocLimits.maxExpandedBytes).
  let decodedBytes = 0;
  let result: unknown = null;
  let done = false;

  // A scalar's JSON value is only computed in value position: a key may be .inf, a value not.
  const valueOf = (
    collection: unknown,
    scalar: GoScalar | undefined,
    merge: boolean,
    at: number,
  ): unknown => {
    if (scalar === undefined) return collection;
    if (merge) return '<<';
    try {
      return scalarToJSON(scalar);
    } catch (err) {
      throw new YamlDocError((err as Error).message, at);
    }
  };

  // Deliver a finished node (a collection, or a scalar) to its parent, or as the document's value.
  const deliver = (
    collection: unknown,
    scalar: GoScalar | undefined,
    merge: boolean,
    nodes: number,
    aliases: number,
    bytes: number,
    height: number,
    at: number,
  ): void => {
    const parent = stack[stack.length - 1];
    if (!parent) {
      result = valueOf(collection, scalar, merge, at);
      done = true;
      return;
    }
    parent.nodes += nodes;
    parent.aliases += aliases;
    parent.bytes += bytes;
    parent.height = Math.max(parent.height, 1 + height);
    if (parent.kind === 'seq') {
      parent.value.push(valueOf(collection, scalar, merge, at));
      return;
    }
    if (parent.key === undefined) {
      if (merge) {
        parent.key = { merge: true };
        return;
      }
      if (scalar === undefined)
        throw new YamlDocError(
          `invalid map key: ${Array.isArray(collection) ? 'a sequence' : 'a mapping'}`,
          at,
        );
      try {
        parent.key = { name: scalarToKey(scalar) };
      } catch (err) {
        throw new YamlDocError((err as Error).message, at);
      }
      return;
    }
    const key = parent.key;
    parent.key = undefined;
    const value = valueOf(collection, scalar, merge, at);
    if ('name' in key) {
      setOwn(parent.value, key.name, value);
      return;
    }
    // goyaml v2 applies a merge where it appears: it overrides keys set before it, and keys
    // after it override it; in a sequence of maps, earlier maps take precedence.
    if (isMapping(value)) mergeInto(parent.value, value);
    else if (Array.isArray(value) && value.every(isMapping))
      for (let i = value.length - 1; i >= 0; i--)
        mergeInto(parent.value, value[i] as Record<string, unknown>);
    else throw new YamlDocError('map merge requires map or sequence of maps as the value', at);
  };

  for (const ev of events) {
    if (done) break;
    switch (ev.type) {
      case EVENT_ID.DOCUMENT:
        break;
      case EVENT_ID.SCALAR: {
        decodeCount++;
        let r: { scalar: GoScalar; merge: boolean; size: number };
        try {
          r = resolveScalar(src, ev);
        } catch (err) {
          throw new YamlDocError((err as Error).message, ev.valueStart);
        }
        if (ev.anchorStart >= 0)
          anchors.set(src.slice(ev.anchorStart, ev.anchorEnd), {
            value: undefined,
            scalar: r.scalar,
            nodes: 1,
            aliases: 0,
            bytes: r.size,
            height: 0,
          });
        decodedBytes += r.size;
        deliver(undefined, r.scalar, r.merge, 1, 0, r.size, 0, ev.valueStart);
        break;
      }
      case EVENT_ID.SEQUENCE:
      case EVENT_ID.MAPPING: {
        decodeCount++;
        decodedBytes++;
        const parent = stack[stack.length - 1];
        if (parent?.kind === 'map' && parent.key === undefined)
          throw new YamlDocError(
            `invalid map key: ${ev.type === EVENT_ID.SEQUENCE ? 'a sequence' : 'a mapping'}`,
            ev.start,
          );
        const anchor = ev.anchorStart >= 0 ? src.slice(ev.anchorStart, ev.anchorEnd) : undefined;
        if (ev.type === EVENT_ID.SEQUENCE)
          stack.push({
            kind: 'seq',
            value: [],
            anchor,
            start: ev.start,
            nodes: 1,
            aliases: 0,
            bytes: 1,
            height: 1,
          });
        else
          stack.push({
            kind: 'map',
            value: {},
            anchor,
            start: ev.start,
            nodes: 1,
            aliases: 0,
            bytes: 1,
            height: 1,
            key: undefined,
          });
        break;
      }
      case EVENT_ID.POP: {
        const frame = stack.pop();
        if (!frame) break; // end of document
        if (frame.anchor !== undefined)
          anchors.set(frame.anchor, {
            value: frame.value,
            scalar: undefined,
            nodes: frame.nodes,
            aliases: frame.aliases,
            bytes: frame.bytes,
            height: frame.height,
          });
        deliver(
          frame.value,
          undefined,
          false,
          frame.nodes,
          frame.aliases,
          frame.bytes,
          frame.height,
          frame.start,
        );
        break;
      }
      case EVENT_ID.ALIAS: {
        const name = src.slice(ev.anchorStart, ev.anchorEnd);
        const target = anchors.get(name);
        if (!target) throw new YamlDocError(`unknown anchor '${name}' referenced`, ev.anchorStart);
        aliasCount += 1 + target.aliases;
        decodeCount += 1 + target.nodes;
        expandedByAliases += target.nodes;
        decodedBytes += target.bytes;
        if (
          aliasCount > 100 &&
          decodeCount > 1000 &&
          aliasCount / decodeCount > allowedAliasRatio(decodeCount)
        ) {
          throw new YamlDocError('document contains excessive aliasing', ev.anchorStart);
        }
        if (expandedByAliases > limits.maxAliasExpandedNodes) {
          throw new YamlDocError(
            `aliases expand to more than ${limits.maxAliasExpandedNodes} nodes`,
            ev.anchorStart,
          );
        }
        // Refused before anything is written out: the value so far holds the expansion by
        // reference only.
        if (decodedBytes > limits.maxExpandedBytes) {
          throw new YamlDocError(
            `aliases expand the document past the limit of ${limits.maxExpandedBytes} bytes`,
            ev.anchorStart,
          );
        }
        // The alias's value sits under every open collection.
        if (stack.length + target.height > limits.maxExpandedDepth) {
          throw new YamlDocError(
            `aliases nest the document deeper than ${limits.maxExpandedDepth} levels`,
            ev.anchorStart,
          );
        }
        deliver(
          target.value,
          target.scalar,
          false,
          1 + target.nodes,
          1 + target.aliases,
          target.bytes,
          target.height,
          ev.anchorStart,
        );
        break;
      }
    }
  }
  return result;
}

// What representation a request accepts (its Accept header, as the apiserver negotiates it):
// JSON of the object or list, the Table, or metadata only (PartialObjectMetadata); protobuf is
// not offered, so a client that also accepts JSON gets JSON and one that does not gets 406.
import { ApiError } from './status.js';

export type Representation = 'object' | 'table' | 'metadata';

interface MediaRange {
  type: string;
  params: Record<string, string>;
}

export function parseAccept(header: string | undefined): MediaRange[] {
  if (!header || header.trim() === '') return [{ type: '*/*', params: {} }];
  return header.split(',').map((part) => {
    const [type, ...params] = part.split(';').map((s) => s.trim());
    const p: Record<string, string> = {};
    for (const kv of params) {
      const eq = kv.indexOf('=');
      if (eq > 0) p[kv.slice(0, eq).trim().toLowerCase()] = kv.slice(eq + 1).trim();
    }
    return { type: (type ?? '').toLowerCase(), params: p };
  });
}

function acceptsJson(type: string): boolean {
  return type === 'application/json' || type === 'application/*' || type === '*/*';
}

/** The representation for a get or list (`list`: a list's metadata kind is asked as …List). */
export function negotiate(header: string | undefined, list: boolean): Representation {
  for (const m of parseAccept(header)) {
    if (!acceptsJson(m.type)) continue;
    const { as, g, v } = m.params;
    if (as === undefined) return 'object';
    if (g !== 'meta.k8s.io' || v !== 'v1') continue;
    if (as === 'Table') return 'table';
    if (as === (list ? 'PartialObjectMetadataList' : 'PartialObjectMetadata')) return 'metadata';
  }
  throw new ApiError(
    406,
    'NotAcceptable',
    `only the following media types are accepted: application/json, application/json;as=Table;v=v1;g=meta.k8s.io, application/json;as=PartialObjectMetadata;v=v1;g=meta.k8s.io`,
  );
}

/** Whether the request asks for aggregated discovery (apidiscovery.k8s.io v2 or v2beta1) first. */
export function aggregatedDiscoveryVersion(
  header: string | undefined,
): 'v2' | 'v2beta1' | undefined {
  for (const m of parseAccept(header)) {
    if (!acceptsJson(m.type)) continue;
    const { as, g, v } = m.params;
    if (as === undefined) return undefined;
    if (
      as === 'APIGroupDiscoveryList' &&
      g === 'apidiscovery.k8s.io' &&
      (v === 'v2' || v === 'v2beta1')
    )
      return v;
  }
  return undefined;
}

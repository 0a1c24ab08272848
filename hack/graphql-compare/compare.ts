// How two GraphQL answers to one query compare (hack/graphql-compare.ts): the bodies parsed as
// JSON with object keys sorted (byte for byte after that), then, when they differ, the looser
// equalities that name why: the same lists in another order (blob order), summary's schemas as
// a set (upstream's is Go map order), the same errors in other words (graphql-js's and
// graphql-go's messages), the same answer with another status (400 here, 200 upstream).

/** One side's answer: status, Content-Type and body text. */
export interface Answer {
  status: number;
  contentType: string;
  body: string;
}

export type Verdict =
  /** Status, content type and body (keys sorted) the same. */
  | 'equal'
  /** The body the same, the status or content type not. */
  | 'equal body'
  /** The same once every list of objects is sorted (order of blobs or of summary.schemas). */
  | 'equal as sets'
  /**
   * `__schema.types` the same once the introspection types (`__Type`, …) are left out: their
   * fields are each library's (graphql-js has the newer specification's isOneOf, isRepeatable…).
   */
  | 'equal but built-in types'
  /** Both errors with no data, the messages other. */
  | 'other error text'
  | 'different';

export interface Comparison {
  verdict: Verdict;
  /** Where and how they differ (empty when equal). */
  detail: string;
}

/** JSON text with every object's keys sorted (by UTF-16 code unit, as sort() does), or the text unchanged if it is not JSON. */
export function canonical(text: string): string {
  try {
    return JSON.stringify(sortKeys(JSON.parse(text)));
  } catch {
    return text.trim();
  }
}

/**
 * Every object's keys sorted; with `lists`, every list too, by its elements' canonical JSON
 * (order-free equality). Recursive.
 */
function sorted(v: unknown, lists: boolean): unknown {
  if (Array.isArray(v)) {
    const items = v.map((x) => sorted(x, lists));
    if (!lists) return items;
    return items
      .map((x) => [JSON.stringify(x), x] as const)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([, x]) => x);
  }
  if (v === null || typeof v !== 'object') return v;
  const o = v as Record<string, unknown>;
  return Object.fromEntries(
    Object.keys(o)
      .sort()
      .map((k) => [k, sorted(o[k], lists)]),
  );
}
const sortKeys = (v: unknown) => sorted(v, false);
const sortLists = (v: unknown) => sorted(v, true);

function parse(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** The first path where two JSON values differ, with both values there (cut to 120 chars). */
function firstDifference(a: unknown, b: unknown, at = '$'): string {
  const cut = (v: unknown) => {
    const s = JSON.stringify(v) ?? 'undefined';
    return s.length > 120 ? `${s.slice(0, 117)}...` : s;
  };
  if (Array.isArray(a) && Array.isArray(b)) {
    for (let i = 0; i < Math.min(a.length, b.length); i++) {
      const d = firstDifference(a[i], b[i], `${at}[${i}]`);
      if (d) return d;
    }
    return a.length === b.length ? '' : `${at}: length ${a.length} vs ${b.length}`;
  }
  const isObj = (v: unknown) => v !== null && typeof v === 'object' && !Array.isArray(v);
  if (isObj(a) && isObj(b)) {
    const ao = a as Record<string, unknown>;
    const bo = b as Record<string, unknown>;
    for (const k of [...new Set([...Object.keys(ao), ...Object.keys(bo)])].sort()) {
      if (!(k in ao) || !(k in bo)) return `${at}.${k}: ${k in ao ? 'only here' : 'only upstream'}`;
      const d = firstDifference(ao[k], bo[k], `${at}.${k}`);
      if (d) return d;
    }
    return '';
  }
  return JSON.stringify(a) === JSON.stringify(b) ? '' : `${at}: ${cut(a)} vs ${cut(b)}`;
}

interface GraphqlBody {
  data?: unknown;
  errors?: Array<{ message?: string }>;
}

/** Compares ours with upstream's answer to one query (see Verdict). */
export function compareAnswers(ours: Answer, upstream: Answer): Comparison {
  const sameBody = canonical(ours.body) === canonical(upstream.body);
  const sameHead =
    ours.status === upstream.status &&
    ours.contentType.split(';')[0] === upstream.contentType.split(';')[0];
  const head = `status ${ours.status} vs ${upstream.status}, ${ours.contentType || '-'} vs ${upstream.contentType || '-'}`;
  if (sameBody && sameHead) return { verdict: 'equal', detail: '' };
  if (sameBody) return { verdict: 'equal body', detail: head };
  const a = parse(ours.body) as GraphqlBody | undefined;
  const b = parse(upstream.body) as GraphqlBody | undefined;
  const status = sameHead ? '' : `; ${head}`;
  if (a === undefined || b === undefined)
    return {
      verdict: 'different',
      detail: `${JSON.stringify(ours.body.slice(0, 80))} vs ${JSON.stringify(upstream.body.slice(0, 80))}${status}`,
    };
  if (JSON.stringify(sortLists(a)) === JSON.stringify(sortLists(b)))
    return {
      verdict: 'equal as sets',
      detail: `${firstDifference(sortKeys(a), sortKeys(b))}${status}`,
    };
  const withoutBuiltIns = (x: GraphqlBody) => {
    const schema = (x.data as { __schema?: { types?: Array<{ name?: string }> } } | null)?.__schema;
    if (!Array.isArray(schema?.types) || !schema.types.every((t) => typeof t.name === 'string'))
      return undefined;
    const types = schema.types.filter((t) => !t.name!.startsWith('__'));
    return JSON.stringify(sortLists({ ...x, data: { __schema: { ...schema, types } } }));
  };
  const [ta, tb] = [withoutBuiltIns(a), withoutBuiltIns(b)];
  if (ta !== undefined && ta === tb)
    return {
      verdict: 'equal but built-in types',
      detail: `${firstDifference(sortLists(a), sortLists(b))}${status}`,
    };
  const errorsOnly = (x: GraphqlBody) => (x.errors?.length ?? 0) > 0 && (x.data ?? null) === null;
  if (errorsOnly(a) && errorsOnly(b))
    return {
      verdict: 'other error text',
      detail: `${firstDifference(sortKeys(a), sortKeys(b))}${status}`,
    };
  return { verdict: 'different', detail: `${firstDifference(sortKeys(a), sortKeys(b))}${status}` };
}

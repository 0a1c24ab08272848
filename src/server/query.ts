// The /api/v1/metas query: which parameters are allowed and what an empty value means.
//
// Semantics follow upstream catalogd (internal/catalogd/storage): the answer is the blobs that
// match every given field; a parameter with an empty value (`package=`) filters nothing, as
// upstream reads it with `Query().Get` and skips empty fields. Unlike upstream, an unknown
// parameter or a repeated one is rejected (400) rather than ignored.

export interface MetasQuery {
  schema?: string;
  package?: string;
  name?: string;
}

const METAS_PARAMETERS = ['schema', 'package', 'name'] as const;
type MetasParameter = (typeof METAS_PARAMETERS)[number];

export type ParsedQuery = { ok: true; query: MetasQuery } | { ok: false; error: string };

function isMetasParameter(key: string): key is MetasParameter {
  return (METAS_PARAMETERS as readonly string[]).includes(key);
}

/** Parses the raw query string (without `?`). Messages are deterministic (no echo of values). */
export function parseMetasQuery(rawQuery: string): ParsedQuery {
  const query: MetasQuery = {};
  const seen = new Set<string>();
  for (const [key, value] of new URLSearchParams(rawQuery)) {
    if (!isMetasParameter(key))
      return {
        ok: false,
        error: `unknown query parameter ${JSON.stringify(key)}: allowed are schema, package, name`,
      };
    if (seen.has(key))
      return { ok: false, error: `query parameter ${JSON.stringify(key)} is given more than once` };
    seen.add(key);
    if (value !== '') query[key] = value;
  }
  return { ok: true, query };
}

/**
 * A canonical spelling of the query (fixed parameter order, empty fields dropped): two requests
 * that select the same blobs normalize to the same string. Part of the metas ETag.
 */
export function normalizeMetasQuery(query: MetasQuery): string {
  const params = new URLSearchParams();
  for (const key of METAS_PARAMETERS) {
    const value = query[key];
    if (value !== undefined && value !== '') params.append(key, value);
  }
  return params.toString();
}

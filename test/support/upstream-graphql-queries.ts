// Upstream catalogd's own GraphQL queries (operator-controller v1.11.0): the ones its how-to
// shows (docs/draft/howto/catalog-queries-graphql-endpoint.md) and its sample-queries.txt
// (internal/catalogd/graphql, committed as test/fixtures/upstream/graphql-sample-queries-v1.11.0.txt).
// hack/graphql-compare.ts sends them to upstream and to catalogd-ts, the graphql bench times them,
// and test/e2e/graphql-upstream-docs.test.ts checks the shape of our answers to them.
import { readFileSync } from 'node:fs';
import path from 'node:path';

export interface NamedQuery {
  /** Short and unique: the row's name in tables. */
  id: string;
  query: string;
}

/**
 * The queries of upstream's how-to, in its order, as its curl examples send them
 * (docs/draft/howto/catalog-queries-graphql-endpoint.md at v1.11.0).
 */
export const UPSTREAM_HOWTO_QUERIES: readonly NamedQuery[] = [
  { id: 'howto:discover', query: '{ __schema { queryType { fields { name description } } } }' },
  {
    id: 'howto:summary',
    query: '{ summary { totalSchemas schemas { name totalObjects totalFields } } }',
  },
  { id: 'howto:bundles', query: '{ olmbundles(limit: 5, offset: 0) { name package image } }' },
  {
    id: 'howto:packages',
    query: '{ olmpackages(limit: 10) { name description defaultChannel } }',
  },
  { id: 'howto:channels', query: '{ olmchannels { name package entries } }' },
  { id: 'howto:pagination', query: '{ olmbundles(limit: 10, offset: 20) { name } }' },
  { id: 'howto:nested', query: '{ olmpackages { name channels { name entries { name } } } }' },
  { id: 'howto:icon', query: '{ olmpackages { name icon } }' },
  { id: 'howto:properties', query: '{ olmbundles(limit: 5) { name properties { type value } } }' },
];

/** The sample file, committed with a four-line origin header. */
const UPSTREAM_SAMPLE_FILE = path.join(
  import.meta.dirname,
  '..',
  '..',
  'test',
  'fixtures',
  'upstream',
  'graphql-sample-queries-v1.11.0.txt',
);

/**
 * The queries of a sample-queries.txt: each `# title` line followed by a `{`-block (braces
 * balanced), in file order, named `sample:<n>` (n from 1) with the title.
 */
function parseSampleQueries(text: string): Array<NamedQuery & { title: string }> {
  const lines = text.split('\n');
  const out: Array<NamedQuery & { title: string }> = [];
  for (let i = 0; i < lines.length; i++) {
    const title = /^# (.*)$/.exec(lines[i]!)?.[1];
    if (title === undefined || !lines[i + 1]?.startsWith('{')) continue;
    let depth = 0;
    const block: string[] = [];
    for (let j = i + 1; j < lines.length; j++) {
      const line = lines[j]!;
      block.push(line);
      for (const ch of line) depth += ch === '{' ? 1 : ch === '}' ? -1 : 0;
      if (depth === 0) {
        i = j;
        break;
      }
    }
    out.push({ id: `sample:${out.length + 1}`, title, query: block.join('\n') });
  }
  return out;
}

/** parseSampleQueries of the committed sample file. */
export function upstreamSampleQueries(): Array<NamedQuery & { title: string }> {
  return parseSampleQueries(readFileSync(UPSTREAM_SAMPLE_FILE, 'utf8'));
}

/** Upstream's introspection of the root fields and object types, as selectAll reads it. */
export const SHAPE_QUERY =
  '{ __schema { queryType { fields { name type { kind name ofType { kind name } } } } ' +
  'types { name kind fields { name type { kind name ofType { kind name ofType { kind name } } } } } } }';

interface TypeRef {
  kind: string;
  name: string | null;
  ofType?: TypeRef | null;
}
export interface Shape {
  __schema: {
    queryType: { fields: Array<{ name: string; type: TypeRef }> };
    types: Array<{
      name: string;
      kind: string;
      fields: Array<{ name: string; type: TypeRef }> | null;
    }>;
  };
}

function named(t: TypeRef | null | undefined): TypeRef | undefined {
  let at = t ?? undefined;
  while (at && (at.kind === 'LIST' || at.kind === 'NON_NULL')) at = at.ofType ?? undefined;
  return at;
}

/** A selection of every field of `typeName`, object fields with every field of theirs. */
export function selectAll(shape: Shape, typeName: string, depth = 0): string {
  const type = shape.__schema.types.find((t) => t.name === typeName);
  const parts = (type?.fields ?? []).map((f) => {
    const inner = named(f.type);
    if (inner?.kind === 'OBJECT' && inner.name && depth < 3)
      return `${f.name} { ${selectAll(shape, inner.name, depth + 1)} }`;
    return f.name;
  });
  return parts.join(' ');
}

/** The catalog's root list fields (every one but summary), with their element type. */
export function rootLists(shape: Shape): Array<{ field: string; type: string }> {
  return shape.__schema.queryType.fields
    .filter((f) => f.name !== 'summary')
    .map((f) => ({ field: f.name, type: named(f.type)?.name ?? '' }))
    .filter((f) => f.type !== '');
}

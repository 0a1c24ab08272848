// Upstream catalogd's own GraphQL queries (operator-controller v1.11.0): the ones its how-to
// shows (docs/draft/howto/catalog-queries-graphql-endpoint.md) and its sample-queries.txt
// (internal/catalogd/graphql, committed as test/fixtures/upstream/graphql-sample-queries-v1.11.0.txt).
// hack/graphql-compare.ts sends them to upstream and to catalogd-ts; the graphql bench times them.
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
export const UPSTREAM_SAMPLE_FILE = path.join(
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
export function parseSampleQueries(text: string): Array<NamedQuery & { title: string }> {
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

// Upstream's documented GraphQL queries against the real controller (issue 56 acceptance): the
// how-to's (operator-controller docs/draft/howto/catalog-queries-graphql-endpoint.md at v1.11.0,
// test/support/upstream-graphql-queries.ts) and sample-queries.txt (committed with its origin in its header:
// test/fixtures/upstream/graphql-sample-queries-v1.11.0.txt), sent as upstream's curl examples
// send them to the sample catalog's status.urls.base. Each answer has upstream's shape: `data`
// holding every field the query selects, under its alias, lists of objects of the selected
// fields; or, for a query naming a field this catalog lacks, a GraphQL error (400 here, 200
// upstream: docs/graphql.md "Differences, and why"). The byte-for-byte comparison with upstream
// v1.11 itself is hack/graphql-compare.ts (docs/graphql.md "Compared with upstream v1.11").
import { expect } from 'chai';
import { Kind, parse } from 'graphql';
import type { DocumentNode, FragmentDefinitionNode, SelectionSetNode } from 'graphql';
import {
  UPSTREAM_HOWTO_QUERIES,
  upstreamSampleQueries,
} from '../support/upstream-graphql-queries.js';
import { sampleDir } from '../support/catalogs.js';
import { serveSampleForSuite } from '../support/e2e-setup.js';
import { uniqueName } from '../support/names.js';

/** Where `value` lacks what `selection` selects (an empty list: upstream's shape). */
function shapeProblems(
  selection: SelectionSetNode,
  value: unknown,
  fragments: Map<string, FragmentDefinitionNode>,
  at: string,
  optional = false,
): string[] {
  if (value === null || value === undefined) return [];
  if (Array.isArray(value))
    return value.flatMap((v, i) => shapeProblems(selection, v, fragments, `${at}[${i}]`, optional));
  if (typeof value !== 'object') return [`${at}: a ${typeof value} where fields are selected`];
  const obj = value as Record<string, unknown>;
  const out: string[] = [];
  for (const s of selection.selections) {
    if (s.kind === Kind.FIELD) {
      const key = s.alias?.value ?? s.name.value;
      if (!(key in obj)) {
        if (!optional) out.push(`${at}.${key}: missing`);
        continue;
      }
      if (s.selectionSet)
        out.push(...shapeProblems(s.selectionSet, obj[key], fragments, `${at}.${key}`));
    } else if (s.kind === Kind.INLINE_FRAGMENT) {
      // On a union or interface member: its fields only where the object is of that type.
      out.push(...shapeProblems(s.selectionSet, obj, fragments, at, true));
    } else {
      const f = fragments.get(s.name.value);
      if (f) out.push(...shapeProblems(f.selectionSet, obj, fragments, at, optional));
    }
  }
  return out;
}

function problemsOf(doc: DocumentNode, data: unknown): string[] {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const d of doc.definitions)
    if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d);
  const op = doc.definitions.find((d) => d.kind === Kind.OPERATION_DEFINITION);
  return op ? shapeProblems(op.selectionSet, data, fragments, 'data') : ['no operation'];
}

describe('graphql e2e: upstream’s documented queries (how-to and sample-queries.txt)', function () {
  this.timeout(300_000);
  const suite = serveSampleForSuite(uniqueName('gql-docs'), sampleDir);
  const queries = [...UPSTREAM_HOWTO_QUERIES, ...upstreamSampleQueries()];

  it('reads the how-to’s 9 queries and the sample file’s, origin in its header', () => {
    expect(UPSTREAM_HOWTO_QUERIES).to.have.length(9);
    expect(queries.length).to.be.greaterThan(20);
  });

  it('answers each in upstream’s shape, or with a GraphQL error for a field the catalog lacks', async () => {
    const answered: string[] = [];
    for (const q of queries) {
      const r = await fetch(`${suite.served()}/api/v1/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query: q.query }),
      });
      expect(r.headers.get('content-type'), q.id).to.match(/^application\/json/);
      const body = (await r.json()) as { data?: unknown; errors?: Array<{ message: string }> };
      if (r.status === 200) {
        expect(body.errors, q.id).to.equal(undefined);
        expect(problemsOf(parse(q.query), body.data), q.id).to.deep.equal([]);
        answered.push(q.id);
      } else {
        expect(r.status, q.id).to.equal(400);
        expect(body.data ?? null, q.id).to.equal(null);
        expect(body.errors?.[0]?.message, q.id).to.be.a('string').and.not.equal('');
      }
    }
    // The how-to's queries over fields every FBC catalog has answer here (its `olmchannels {
    // name package entries }` selects a list of objects without its fields: an error upstream
    // too, as graphql-go validates it).
    expect(answered).to.include.members([
      'howto:discover',
      'howto:summary',
      'howto:bundles',
      'howto:packages',
      'howto:pagination',
      'howto:properties',
    ]);
  });
});

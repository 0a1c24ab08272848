// The requests hack/graphql-compare.ts sends to both servers: upstream's own queries
// (test/support/upstream-graphql-queries.ts), then, per catalog, every root field with every field of its
// type page by page (built from upstream's introspection), limit/offset bounds, summary,
// introspection, and errors of each kind (parse, validation, the three limits, HTTP).

import type { NamedQuery, Shape } from '../../test/support/upstream-graphql-queries.js';
import { selectAll } from '../../test/support/upstream-graphql-queries.js';

/** One request: a query POSTed as `{"query": …}` unless `method`/`body` say otherwise. */
export interface CompareRequest extends NamedQuery {
  method?: 'POST' | 'GET';
  /** A raw body instead of `{"query": query}`. */
  body?: string;
  /** Part of a paged scan of `scan` (the root field), compared page by page and as a whole. */
  scan?: string;
}

/** A scan page of `field` selecting everything. */
export function scanPage(
  shape: Shape,
  root: { field: string; type: string },
  offset: number,
): CompareRequest {
  return {
    id: `all:${root.field}@${offset}`,
    scan: root.field,
    query: `{ ${root.field}(limit: 100, offset: ${offset}) { ${selectAll(shape, root.type)} } }`,
  };
}

const repeat = (n: number, f: (i: number) => string) =>
  Array.from({ length: n }, (_, i) => f(i)).join(' ');

/** limit/offset at and past their bounds, summary, introspection, errors and HTTP. */
export function fixedRequests(): CompareRequest[] {
  const b = (id: string, args: string) => ({
    id: `bounds:${id}`,
    query: `{ olmbundles${args} { name package } }`,
  });
  return [
    b('default', ''),
    b('limit=0', '(limit: 0)'),
    b('limit=-1', '(limit: -1)'),
    b('limit=1', '(limit: 1)'),
    b('limit=100', '(limit: 100)'),
    b('limit=101', '(limit: 101)'),
    b('offset=-5', '(limit: 3, offset: -5)'),
    b('offset=3', '(limit: 3, offset: 3)'),
    b('offset=past-end', '(offset: 100000)'),
    {
      id: 'bounds:two-roots',
      query: '{ olmpackages(limit: 2) { name } olmchannels(limit: 2) { name package } }',
    },
    {
      id: 'bounds:alias-pages',
      query: '{ a: olmbundles(limit: 2) { name } b: olmbundles(limit: 2, offset: 2) { name } }',
    },
    { id: 'summary:total', query: '{ summary { totalSchemas } }' },
    {
      id: 'summary:all',
      query: '{ summary { totalSchemas schemas { name totalObjects totalFields } } }',
    },
    { id: 'intro:typename', query: '{ __typename }' },
    {
      id: 'intro:root-args',
      query:
        '{ __schema { queryType { name fields { name description args { name description defaultValue type { name kind } } } } } }',
    },
    {
      id: 'intro:bundle-type',
      query:
        '{ __type(name: "OlmBundle") { name kind description fields { name description type { name kind ofType { name kind } } } } }',
    },
    {
      id: 'intro:properties-type',
      query:
        '{ __type(name: "OlmBundleProperties") { name kind fields { name type { name kind ofType { name kind } } } } }',
    },
    {
      id: 'intro:summary-types',
      query:
        '{ __type(name: "CatalogSummary") { name fields { name type { name kind ofType { name kind } } } } }',
    },
    { id: 'intro:types', query: '{ __schema { types { name kind } } }' },
    {
      id: 'intro:directives',
      query: '{ __schema { directives { name locations args { name } } } }',
    },
    { id: 'error:unknown-root', query: '{ nosuch }' },
    { id: 'error:unknown-field', query: '{ olmbundles { nosuch } }' },
    { id: 'error:did-you-mean', query: '{ olmbundles { nam } }' },
    { id: 'error:unknown-arg', query: '{ olmbundles(first: 1) { name } }' },
    { id: 'error:arg-type', query: '{ olmbundles(limit: "x") { name } }' },
    { id: 'error:no-selection', query: '{ olmbundles }' },
    { id: 'error:syntax', query: '{ olmbundles { name }' },
    { id: 'error:mutation', query: 'mutation { x }' },
    { id: 'error:two-anonymous', query: '{ summary { totalSchemas } } { __typename }' },
    {
      id: 'limit:depth-10',
      query: `{ __schema { types { fields { type { ofType { ofType { ofType { ofType { ofType { name } } } } } } } } } }`,
    },
    {
      id: 'limit:depth-11',
      query: `{ __schema { types { fields { type { ofType { ofType { ofType { ofType { ofType { ofType { name } } } } } } } } } } }`,
    },
    { id: 'limit:aliases-50', query: `{ ${repeat(50, (i) => `a${i}: __typename`)} }` },
    { id: 'limit:aliases-51', query: `{ ${repeat(51, (i) => `a${i}: __typename`)} }` },
    { id: 'limit:fields-500', query: `{ olmpackages(limit: 1) { ${repeat(499, () => 'name')} } }` },
    { id: 'limit:fields-501', query: `{ olmpackages(limit: 1) { ${repeat(500, () => 'name')} } }` },
    {
      id: 'vars:ignored-upstream',
      query: 'query($l: Int) { olmbundles(limit: $l) { name } }',
      body: JSON.stringify({
        query: 'query($l: Int) { olmbundles(limit: $l) { name } }',
        variables: { l: 2 },
      }),
    },
    { id: 'http:empty-query', query: '', body: '{"query": ""}' },
    { id: 'http:not-json', query: '', body: '{"query": ' },
    { id: 'http:get', query: '{ __typename }', method: 'GET' },
  ];
}

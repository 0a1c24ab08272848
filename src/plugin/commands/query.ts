// `kubectl catalog query GRAPHQL [--catalog C] [--variables JSON] [--operation-name NAME]`: a
// GraphQL query (docs/graphql.md) sent to one catalog's endpoint, or across every serving
// catalog, through the client library (CatalogClient.graphql: the same URLs, CA and service
// proxy as the blobs). The answer's `data` is printed as a document (JSON by default, -o yaml);
// its errors are printed on stderr, one line each, and make the exit code 1.
import type { GraphqlErrorItem } from '../../client/index.js';
import { usageError } from '../../util/command-error.js';
import { terminalLine } from '../../util/terminal-text.js';
import type { Command } from '../context.js';
import { documentText } from '../context.js';

const HELP = `kubectl catalog query GRAPHQL: a GraphQL query to the catalogs' content server

Usage:
  kubectl catalog query '{ olmpackages { name defaultChannel } }' --catalog C
  kubectl catalog query '{ catalogs { name priority } olmpackages { catalog name } }'
  kubectl catalog query 'query ($n: Int) { olmbundles(limit: $n) { name } }' --catalog C --variables '{"n": 3}'

Without --catalog the query goes to the endpoint across every serving catalog, by priority
(<server-url>/api/v1/graphql); with it, to that catalog's (<status.urls.base>/api/v1/graphql).
The answer's data is printed as JSON (-o yaml: YAML); the errors of the answer on stderr, one
line each, and the exit code is then 1 (partial data is printed too).

Options:
      --catalog NAME          the ClusterCatalog to ask (default: every serving catalog)
      --variables JSON        the query's variables, a JSON object
      --operation-name NAME   the operation to run, when the query has several
  -o, --output FORMAT         json (default) or yaml
      --kubeconfig, --server-url, --certificate-authority: as for every command (kubectl catalog -h)
`;

/** --variables: a JSON object, or a usage error. */
function parseVariables(text: string | undefined): Record<string, unknown> | undefined {
  if (text === undefined) return undefined;
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (err) {
    throw usageError(`--variables: not JSON (${(err as Error).message})`);
  }
  if (v === null || typeof v !== 'object' || Array.isArray(v))
    throw usageError('--variables must be a JSON object, e.g. \'{"n": 3}\'');
  return v as Record<string, unknown>;
}

/** One error of the answer as a line: its message, where it is in the query and the answer. */
function errorLine(e: GraphqlErrorItem): string {
  const at = (e.locations ?? []).map((l) => `${l.line}:${l.column}`).join(', ');
  const path = (e.path ?? []).join('.');
  const where = [at && `at ${at}`, path && `path ${path}`].filter(Boolean).join(', ');
  return terminalLine(`${e.message}${where ? ` (${where})` : ''}`);
}

export const query: Command = {
  name: 'query',
  arg: 'GRAPHQL',
  flags: ['catalog', 'variables', 'operation-name'],
  outputs: ['json', 'yaml'],
  help: HELP,
  async run(ctx, graphql) {
    if (graphql.trim() === '')
      throw usageError("query needs a GraphQL query, e.g. '{ catalogs { name } }'");
    const variables = parseVariables(ctx.opts.variables);
    const { catalog, operationName } = ctx.opts;
    const answer = await ctx.client.graphql(graphql, {
      ...(catalog !== undefined && { catalog }),
      ...(variables !== undefined && { variables }),
      ...(operationName !== undefined && { operationName }),
    });
    if (answer.data !== null && answer.data !== undefined)
      ctx.io.stdout(documentText(ctx.opts.output === 'yaml' ? 'yaml' : 'json', answer.data));
    for (const e of answer.errors) ctx.io.stderr(`error: ${errorLine(e)}\n`);
    if (answer.errors.length === 0 && (answer.data === null || answer.data === undefined)) {
      ctx.io.stderr(`error: the server answered HTTP ${answer.status} with no data and no error\n`);
      return 1;
    }
    return answer.errors.length > 0 ? 1 : 0;
  },
};

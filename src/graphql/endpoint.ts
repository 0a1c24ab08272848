// `<base>/api/v1/graphql` (docs/graphql.md): the content server's handler leases the revision
// the URL names and calls this through its LeasedEndpoint port. POST answers any query as
// upstream catalogd does; GET (and HEAD) answers a query given as ?query= with an ETag from
// the revision and the request, and 304 to a client that has it. The answer is JSON as
// upstream's encoding/json writes it; request errors (a bad body, a parse error, a limit, a
// validation error, a budget) are 400 with upstream's error shape; gzip when asked. The
// request handling (readQuery, answerQuery) is also the endpoint across catalogs' (across.ts).
import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { promisify } from 'node:util';
import { gzip as gzipCallback } from 'node:zlib';
import {
  OperationTypeNode,
  execute,
  getOperationAST,
  parse,
  specifiedRules,
  validate,
} from 'graphql';
import type { DocumentNode, ExecutionResult, GraphQLError, GraphQLSchema } from 'graphql';
import { acceptsGzip, etagHeader, httpDate, requestIsNotModified } from '../server/index.js';
import type { LeasedEndpoint } from '../server/index.js';
import { realClock } from '../util/clock.js';
import type { Clock } from '../util/clock.js';
import { additionListSize } from './additions.js';
import { CatalogSchemas } from './catalog-schemas.js';
import { QueryGate } from './gate.js';
import { goJson, goJsonString } from './go-values.js';
import { isAdditionRootField } from './names.js';
import {
  DEFAULT_QUERY_LIMITS,
  QueryLimitError,
  checkComplexity,
  checkJoinCost,
  checkListCost,
  joinCost,
  listCost,
} from './limits.js';
import type { QueryLimits } from './limits.js';
import { PackageCache } from './package-cache.js';
import { DEFAULT_QUERY_BUDGETS, QueryRun } from './query-run.js';
import type { QueryBudgets } from './query-run.js';
import { SchemaBuildError } from './schema.js';

const gzip = promisify(gzipCallback);

/** Upstream's bounds of a request: its body (http.MaxBytesReader) and its query. */
export const MAX_BODY_BYTES = 1 << 20;
export const MAX_QUERY_BYTES = 100_000;
/**
 * Ours: tokens of a query (graphql-js's parser stops past it). A fragment spread repeated is
 * not counted by upstream's field limit, and 20,000 of them cost graphql-js half a second of
 * validation; 5,000 tokens are ten times what a 500-field query needs.
 */
export const MAX_QUERY_TOKENS = 5000;
/** Upstream's deadline of a query (context.WithTimeout in its GraphQL service). */
export const DEFAULT_DEADLINE_MS = 5000;
/**
 * Queries executing (and writing their answers) at once, and waiting for a turn, per process.
 * One: the event loop is one thread, so a second query only overlaps reads with the first,
 * and it doubles what GraphQL holds at once (the graphql bench: the content server peaks
 * 15-25 MB lower under 16 clients with one than with two, at the same throughput).
 */
export const DEFAULT_RUNNING_QUERIES = 1;
export const DEFAULT_WAITING_QUERIES = 32;
export const GRAPHQL_RETRY_AFTER_SECONDS = 1;

export interface GraphqlEndpointOptions {
  limits?: Partial<QueryLimits>;
  budgets?: Partial<QueryBudgets>;
  /** Per query, from when it starts executing; default DEFAULT_DEADLINE_MS. */
  deadlineMs?: number;
  running?: number;
  waiting?: number;
  /**
   * The turns to execute (`running`, `waiting` are then unused): the controller shares one
   * between this endpoint and the one across catalogs, so that GraphQL holds one query's
   * memory at a time in the process.
   */
  gate?: QueryGate;
  /** What the additions keep of revisions' packages across queries; default a new one. */
  packages?: PackageCache;
  /** The revisions' schemas (tests share one); default a new cache. */
  schemas?: CatalogSchemas;
  clock?: Pick<Clock, 'setTimer'>;
}

/** One error as upstream writes it (gqlerrors.FormattedError: message, locations, path). */
export interface ErrorOut {
  message: string;
  locations?: ReadonlyArray<{ line: number; column: number }> | undefined;
  path?: ReadonlyArray<string | number> | undefined;
  extensions?: Readonly<Record<string, unknown>> | undefined;
}

function errorJson(e: ErrorOut): string {
  const locations = (e.locations ?? []).map((l) => `{"line":${l.line},"column":${l.column}}`);
  let out = `{"message":${goJsonString(e.message)},"locations":[${locations.join(',')}]`;
  if (e.path && e.path.length > 0) out += `,"path":${goJson(e.path)}`;
  if (e.extensions && Object.keys(e.extensions).length > 0)
    out += `,"extensions":${goJson(e.extensions)}`;
  return `${out}}`;
}

/** graphql-go's Result as encoding/json writes it: data, then errors and extensions if any. */
export function resultJson(
  data: unknown,
  errors: readonly ErrorOut[] = [],
  extensions?: Readonly<Record<string, unknown>>,
): string {
  let out = `{"data":${goJson(data ?? null)}`;
  if (errors.length > 0) out += `,"errors":[${errors.map(errorJson).join(',')}]`;
  if (extensions && Object.keys(extensions).length > 0)
    out += `,"extensions":${goJson(extensions)}`;
  return `${out}}\n`;
}

export function errorOut(e: GraphQLError): ErrorOut {
  return { message: e.message, locations: e.locations, path: e.path, extensions: e.extensions };
}

const JSON_TYPE = 'application/json';

function send(
  req: IncomingMessage,
  res: ServerResponse,
  status: number,
  body: Buffer | string,
  headers: Record<string, string | number> = {},
): void {
  if (res.destroyed) return;
  // A string is written as it is (no copy of a large answer into a Buffer first).
  res.writeHead(status, {
    ...headers,
    'Content-Type': JSON_TYPE,
    'Content-Length': typeof body === 'string' ? Buffer.byteLength(body) : body.length,
    'X-Content-Type-Options': 'nosniff',
  });
  res.end(req.method === 'HEAD' ? undefined : body);
}

/** A 200 answer: `result` as upstream writes it, gzipped when the client asked. */
async function sendResult(
  req: IncomingMessage,
  res: ServerResponse,
  result: ExecutionResult,
  gzipped: boolean,
  headers: Record<string, string>,
  errors: readonly ErrorOut[] = (result.errors ?? []).map(errorOut),
): Promise<void> {
  const json = resultJson(result.data, errors, result.extensions);
  if (!gzipped) return send(req, res, 200, json, headers);
  const body = await gzip(json);
  send(req, res, 200, body, { ...headers, 'Content-Encoding': 'gzip' });
}

export function sendErrors(
  req: IncomingMessage,
  res: ServerResponse,
  status: number,
  errors: readonly ErrorOut[],
  headers: Record<string, string> = {},
): void {
  send(req, res, status, resultJson(null, errors), headers);
}

interface Params {
  query: string;
  variables: Record<string, unknown> | undefined;
  operationName: string | undefined;
}

type ParamsOrError =
  | { ok: true; params: Params; raw: string }
  | { ok: false; message: string; close?: boolean }
  | { ok: false; gone: true };

const INVALID_BODY = 'Invalid request body';

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function checkQuery(
  query: unknown,
  variables: unknown,
  operationName: unknown,
  raw: string,
): ParamsOrError {
  if (query !== undefined && query !== null && typeof query !== 'string')
    return { ok: false, message: INVALID_BODY };
  if (variables !== undefined && variables !== null && !isPlainObject(variables))
    return { ok: false, message: 'variables must be a JSON object' };
  if (operationName !== undefined && operationName !== null && typeof operationName !== 'string')
    return { ok: false, message: INVALID_BODY };
  if (typeof query !== 'string' || query === '')
    return { ok: false, message: 'Query cannot be empty' };
  if (Buffer.byteLength(query) > MAX_QUERY_BYTES) return { ok: false, message: 'Query too large' };
  return {
    ok: true,
    raw,
    params: {
      query,
      variables: isPlainObject(variables) ? variables : undefined,
      operationName:
        typeof operationName === 'string' && operationName !== '' ? operationName : undefined,
    },
  };
}

/** GET's parameters (GraphQL over HTTP): query, variables (JSON), operationName. */
function paramsFromQueryString(rawQuery: string): ParamsOrError {
  const q = new URLSearchParams(rawQuery);
  const vars = q.get('variables');
  let variables: unknown;
  if (vars !== null && vars !== '') {
    try {
      variables = JSON.parse(vars);
    } catch {
      return { ok: false, message: 'variables must be a JSON object' };
    }
  }
  const raw = JSON.stringify([q.get('query'), vars ?? '', q.get('operationName') ?? '']);
  return checkQuery(q.get('query'), variables, q.get('operationName'), raw);
}

/** The body, at most `max` bytes: 'too-large' past it, 'gone' if the client leaves. */
function readBody(req: IncomingMessage, max: number): Promise<Buffer | 'too-large' | 'gone'> {
  return new Promise((resolve) => {
    const declared = Number(req.headers['content-length']);
    if (declared > max) {
      resolve('too-large');
      return;
    }
    const chunks: Buffer[] = [];
    let bytes = 0;
    const done = (v: Buffer | 'too-large' | 'gone'): void => {
      req.off('data', onData).off('end', onEnd).off('error', onGone).off('close', onClose);
      resolve(v);
    };
    const onData = (chunk: Buffer): void => {
      bytes += chunk.length;
      if (bytes <= max) chunks.push(chunk);
      else {
        req.pause();
        done('too-large');
      }
    };
    const onEnd = (): void => done(Buffer.concat(chunks));
    const onGone = (): void => done('gone');
    const onClose = (): void => {
      if (!req.complete) done('gone');
    };
    req.on('data', onData).on('end', onEnd).on('error', onGone).on('close', onClose);
  });
}

async function paramsFromBody(req: IncomingMessage): Promise<ParamsOrError> {
  const body = await readBody(req, MAX_BODY_BYTES);
  if (body === 'gone') return { ok: false, gone: true };
  // The rest of a body too large is not read: the connection closes after the answer.
  if (body === 'too-large') return { ok: false, message: INVALID_BODY, close: true };
  let json: unknown;
  try {
    json = JSON.parse(body.toString('utf8'));
  } catch {
    return { ok: false, message: INVALID_BODY };
  }
  if (!isPlainObject(json)) return { ok: false, message: INVALID_BODY };
  return checkQuery(json.query, json.variables, json.operationName, '');
}

/** The opaque tag of a GET answer: the revision and the request's three parameters. */
export function graphqlEntityTag(contentHash: string, rawParams: string): string {
  return createHash('sha256').update(`${contentHash}\ngraphql\n${rawParams}`).digest('hex');
}

/** A request's GraphQL parameters and its parsed document. */
export interface ReadQuery {
  isGet: boolean;
  params: Params;
  raw: string;
  document: DocumentNode;
}

/**
 * A request's GraphQL parameters (query string for GET, JSON body for POST) and its parsed
 * document within the depth, alias and field limits; undefined when it was answered already
 * (400, or a client that went away). Both endpoints, per catalog and across catalogs, read so.
 */
export async function readQuery(
  req: IncomingMessage,
  res: ServerResponse,
  rawQuery: string,
  limits: QueryLimits,
): Promise<ReadQuery | undefined> {
  const isGet = req.method !== 'POST';
  const parsed = isGet ? paramsFromQueryString(rawQuery) : await paramsFromBody(req);
  if (!parsed.ok) {
    if ('gone' in parsed) return undefined;
    sendErrors(
      req,
      res,
      400,
      [{ message: parsed.message }],
      parsed.close ? { Connection: 'close' } : {},
    );
    return undefined;
  }
  let document: DocumentNode;
  try {
    document = parse(parsed.params.query, { maxTokens: MAX_QUERY_TOKENS });
    checkComplexity(document, limits);
  } catch (err) {
    const message =
      err instanceof QueryLimitError ? err.message : `query parse error: ${(err as Error).message}`;
    sendErrors(req, res, 400, [{ message }]);
    return undefined;
  }
  return { isGet, params: parsed.params, raw: parsed.raw, document };
}

/** What one endpoint answers a parsed query from (answerQuery). */
export interface QueryTarget<C extends { failure: QueryLimitError | undefined }> {
  schema: GraphQLSchema;
  /** The schema's root list fields (upstream's: the list cost counts them). */
  rootFields: ReadonlyMap<string, unknown>;
  /** A GET answer's opaque tag (of the content and `raw`, the request) and Last-Modified. */
  validator(raw: string): { tag: string; lastModified: Date };
  /** The execution's context: it reads within `signal`, and calls `abort` past a budget. */
  context(signal: AbortSignal, abort: (err: Error) => void): C;
  /** Errors the answer names before the execution's (default none). */
  errorsBefore?(context: C): readonly ErrorOut[];
}

/** What every query is answered within: its limits, its deadline, the gate's turns. */
export interface AnswerBounds {
  limits: QueryLimits;
  deadlineMs: number;
  gate: QueryGate;
  clock: Pick<Clock, 'setTimer'>;
}

/**
 * Answers a query readQuery parsed, from `target`: validation errors (400), GET for queries
 * only (405), the list and join costs (400), a GET's ETag and 304, then the execution within a
 * turn (503 when none) and the deadline (503), a budget passed (400), and the answer, gzipped
 * when asked. Both endpoints, per catalog and across catalogs, answer so.
 */
export async function answerQuery<C extends { failure: QueryLimitError | undefined }>(
  req: IncomingMessage,
  res: ServerResponse,
  read: ReadQuery,
  target: QueryTarget<C>,
  bounds: AnswerBounds,
): Promise<void> {
  const { isGet, document, params, raw } = read;
  const { variables, operationName } = params;
  const { limits, deadlineMs } = bounds;
  const invalid = validate(target.schema, document, specifiedRules, { maxErrors: 100 });
  if (invalid.length > 0) return sendErrors(req, res, 400, invalid.map(errorOut));
  const operation = getOperationAST(document, operationName);
  if (isGet && operation && operation.operation !== OperationTypeNode.QUERY)
    return sendErrors(req, res, 405, [{ message: 'GET answers queries only: use POST' }], {
      Allow: 'POST',
    });
  if (operation)
    try {
      checkListCost(
        listCost(document, operation, variables ?? {}, (f) => target.rootFields.has(f)),
        limits,
      );
      // The additions' joins (across catalogs: what they cost per catalog, on every catalog).
      checkJoinCost(
        joinCost(document, operation, variables ?? {}, isAdditionRootField, additionListSize),
        limits,
      );
    } catch (err) {
      return sendErrors(req, res, 400, [{ message: (err as Error).message }]);
    }
  const gzipped = acceptsGzip(req.headers['accept-encoding']);
  const headers: Record<string, string> = { Vary: 'Accept-Encoding' };
  if (isGet) {
    const { tag, lastModified } = target.validator(raw);
    headers.ETag = etagHeader(tag, gzipped);
    headers['Last-Modified'] = httpDate(lastModified);
    if (requestIsNotModified(req.headers, tag, lastModified)) {
      res.writeHead(304, headers);
      res.end();
      return;
    }
  }
  const outcome = await run(read, target, bounds, res);
  // The turn is held until the answer is written: its data, its JSON and its gzip are what
  // a query holds at most, one query at a time.
  try {
    if (outcome.kind === 'gone') return;
    if (outcome.kind === 'busy')
      return sendErrors(req, res, 503, [{ message: 'too many GraphQL queries at once: retry' }], {
        'Retry-After': String(GRAPHQL_RETRY_AFTER_SECONDS),
      });
    if (outcome.kind === 'failed') return sendErrors(req, res, 400, [{ message: outcome.message }]);
    if (outcome.kind === 'deadline')
      return sendErrors(
        req,
        res,
        503,
        [{ message: `query exceeds its deadline of ${deadlineMs / 1000}s` }],
        { 'Retry-After': String(GRAPHQL_RETRY_AFTER_SECONDS) },
      );
    const { result, context } = outcome;
    // No data: a request error (variables, the operation to run), before anything ran.
    if (result.data === undefined)
      return sendErrors(req, res, 400, (result.errors ?? []).map(errorOut));
    const errors = [
      ...(target.errorsBefore?.(context) ?? []),
      ...(result.errors ?? []).map(errorOut),
    ];
    await sendResult(req, res, result, gzipped, headers, errors);
  } finally {
    if ('leave' in outcome) outcome.leave();
  }
}

/** Past the gate, `leave` gives the turn back (the caller, once the answer is written). */
type Outcome<C> =
  | { kind: 'done'; result: ExecutionResult; context: C; leave: () => void }
  | { kind: 'gone' }
  | { kind: 'busy' }
  | { kind: 'failed'; message: string; leave: () => void }
  | { kind: 'deadline'; leave: () => void }
  | { kind: 'gone'; leave: () => void };

/** Executes the query within a turn of the gate and the deadline; a client that leaves stops it. */
async function run<C extends { failure: QueryLimitError | undefined }>(
  read: ReadQuery,
  target: QueryTarget<C>,
  { gate, clock, deadlineMs }: AnswerBounds,
  res: ServerResponse,
): Promise<Outcome<C>> {
  const stop = new AbortController();
  const onClose = (): void => stop.abort(new Error('the client left'));
  res.once('close', onClose);
  try {
    const leave = await gate.enter(stop.signal);
    if (!leave) return stop.signal.aborted ? { kind: 'gone' } : { kind: 'busy' };
    let late = false;
    const timer = clock.setTimer(deadlineMs, () => {
      late = true;
      stop.abort(new Error('deadline'));
    });
    let context: C | undefined;
    let result: ExecutionResult | undefined;
    try {
      context = target.context(stop.signal, (err) => stop.abort(err));
      result = await execute({
        schema: target.schema,
        document: read.document,
        variableValues: read.params.variables ?? null,
        operationName: read.params.operationName ?? null,
        contextValue: context,
        abortSignal: stop.signal,
      });
    } catch (err) {
      if (!stop.signal.aborted) {
        leave();
        throw err;
      }
    } finally {
      timer.cancel();
    }
    if (context?.failure) return { kind: 'failed', message: context.failure.message, leave };
    if (late) return { kind: 'deadline', leave };
    if (stop.signal.aborted || !result || !context) return { kind: 'gone', leave };
    return { kind: 'done', result, context, leave };
  } finally {
    res.off('close', onClose);
  }
}

/**
 * What an endpoint is made of, from its options: the bounds of its answers, its budgets, its
 * schemas and its package cache (each the one given, else a default); its own gate of
 * `running` and `waiting` turns unless one is given.
 */
export function endpointParts(
  opts: GraphqlEndpointOptions,
  running: number,
  waiting: number,
): {
  bounds: AnswerBounds;
  budgets: QueryBudgets;
  schemas: CatalogSchemas;
  packages: PackageCache;
} {
  return {
    bounds: {
      limits: { ...DEFAULT_QUERY_LIMITS, ...opts.limits },
      deadlineMs: opts.deadlineMs ?? DEFAULT_DEADLINE_MS,
      gate: opts.gate ?? new QueryGate(opts.running ?? running, opts.waiting ?? waiting),
      clock: opts.clock ?? realClock,
    },
    budgets: { ...DEFAULT_QUERY_BUDGETS, ...opts.budgets },
    schemas: opts.schemas ?? new CatalogSchemas(),
    packages: opts.packages ?? new PackageCache(),
  };
}

export function createGraphqlEndpoint(opts: GraphqlEndpointOptions = {}): LeasedEndpoint {
  const { bounds, budgets, schemas, packages } = endpointParts(
    opts,
    DEFAULT_RUNNING_QUERIES,
    DEFAULT_WAITING_QUERIES,
  );

  return async (req, res, lease, rawQuery) => {
    const read = await readQuery(req, res, rawQuery, bounds.limits);
    if (!read) return;
    let catalog;
    try {
      catalog = await schemas.get(lease);
    } catch (err) {
      if (!(err instanceof SchemaBuildError)) throw err;
      return sendErrors(req, res, 500, [
        { message: `failed to get GraphQL schema: error building GraphQL schema: ${err.message}` },
      ]);
    }
    await answerQuery(
      req,
      res,
      read,
      {
        schema: catalog.schema,
        rootFields: catalog.rootFields,
        validator: (raw) => ({
          tag: graphqlEntityTag(lease.contentHash, raw),
          lastModified: lease.lastModified,
        }),
        context: (signal, abort) =>
          new QueryRun(lease, budgets, signal, abort, {
            cache: packages,
            revision: lease.contentHash,
          }),
      },
      bounds,
    );
  };
}

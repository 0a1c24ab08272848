// `<server-url>/api/v1/graphql` (docs/graphql.md, "Across catalogs"): one query over every
// serving catalog. The catalogs come from the CatalogDirectory port (priority, availabilityMode,
// Serving), their revisions from the content server's store (the revision each serves now).
// The query is validated against the schema across them (across-schema.ts); each root list
// field runs, catalog by catalog in priority order, as a query of that one field against the
// catalog's own schema (its own resolvers, reads and budgets), and the answers are
// concatenated, each object naming its catalog. A catalog that cannot answer (not Serving, not
// held here, no schema, an error in its answer) is named in `errors` and left out; the others
// answer. Request handling, limits, the deadline, ETag/304 and gzip are the per-catalog
// endpoint's.
import { createHash } from 'node:crypto';
import { execute, getOperationAST, OperationTypeNode, specifiedRules, validate } from 'graphql';
import type { ExecutionResult } from 'graphql';
import { acceptsGzip, etagHeader, httpDate, requestIsNotModified } from '../server/index.js';
import type { ServerEndpoint } from '../server/index.js';
import { realClock } from '../util/clock.js';
import type { Clock } from '../util/clock.js';
import { byPriority } from './across-port.js';
import type { CatalogDirectory, CatalogEntry } from './across-port.js';
import { AcrossRun, answeringCatalogs } from './across-run.js';
import type { Answering } from './across-run.js';
import { buildAcrossSchema } from './across-schema.js';
import type { AcrossSchema, CatalogRow } from './across-schema.js';
import { CatalogSchemas } from './catalog-schemas.js';
import {
  DEFAULT_DEADLINE_MS,
  GRAPHQL_RETRY_AFTER_SECONDS,
  errorOut,
  readQuery,
  sendErrors,
  sendResult,
} from './endpoint.js';
import { QueryGate } from './gate.js';
import { PackageCache } from './package-cache.js';
import {
  DEFAULT_QUERY_LIMITS,
  checkJoinCost,
  checkListCost,
  joinCost,
  listCost,
} from './limits.js';
import { additionListSize } from './additions.js';
import { isAdditionRootField } from './names.js';
import type { QueryLimits } from './limits.js';
import { DEFAULT_QUERY_BUDGETS } from './query-run.js';
import type { QueryBudgets } from './query-run.js';

/** Queries across catalogs executing at once, and waiting, per process (each reads many). */
export const DEFAULT_ACROSS_RUNNING = 1;
export const DEFAULT_ACROSS_WAITING = 16;
/** Schemas across catalogs kept (one per set of catalog revisions). */
const ACROSS_SCHEMAS_KEPT = 8;

export interface AcrossEndpointOptions {
  directory: CatalogDirectory;
  /** The catalogs' own schemas (share the per-catalog endpoint's); default a new cache. */
  schemas?: CatalogSchemas;
  limits?: Partial<QueryLimits>;
  /** For the whole query, all catalogs together. */
  budgets?: Partial<QueryBudgets>;
  deadlineMs?: number;
  running?: number;
  waiting?: number;
  /**
   * The turns to execute (`running`, `waiting` are then unused): the controller gives the per
   * catalog endpoint's, so that GraphQL holds one query's memory at a time in the process.
   */
  gate?: QueryGate;
  /** What the additions keep of revisions' packages across queries (share the per-catalog one). */
  packages?: PackageCache;
  clock?: Pick<Clock, 'setTimer'>;
}

/** The tag of a GET answer: every catalog's state and revision, and the request. */
function acrossEntityTag(
  entries: readonly CatalogEntry[],
  answering: readonly Answering[],
  raw: string,
): string {
  const hashes = new Map(answering.map((a) => [a.entry.name, a.lease.contentHash]));
  const state = [...entries]
    .sort(byPriority)
    .map((e) => [e.name, e.priority, e.availabilityMode, e.serving, hashes.get(e.name) ?? null]);
  return createHash('sha256')
    .update(`across\n${JSON.stringify(state)}\n${raw}`)
    .digest('hex');
}

export function createAcrossEndpoint(opts: AcrossEndpointOptions): ServerEndpoint {
  const limits: QueryLimits = { ...DEFAULT_QUERY_LIMITS, ...opts.limits };
  const budgets: QueryBudgets = { ...DEFAULT_QUERY_BUDGETS, ...opts.budgets };
  const deadlineMs = opts.deadlineMs ?? DEFAULT_DEADLINE_MS;
  const schemas = opts.schemas ?? new CatalogSchemas();
  const gate =
    opts.gate ??
    new QueryGate(opts.running ?? DEFAULT_ACROSS_RUNNING, opts.waiting ?? DEFAULT_ACROSS_WAITING);
  const clock = opts.clock ?? realClock;
  const packages = opts.packages ?? new PackageCache();
  const acrossSchemas = new Map<string, AcrossSchema>();
  const acrossSchemaOf = (answering: readonly Answering[]): AcrossSchema => {
    const key = answering.map((a) => `${a.entry.name}@${a.lease.contentHash}`).join(' ');
    let s = acrossSchemas.get(key);
    if (s) {
      acrossSchemas.delete(key);
    } else {
      s = buildAcrossSchema(answering.map((a) => ({ name: a.entry.name, schema: a.schema })));
      if (acrossSchemas.size >= ACROSS_SCHEMAS_KEPT)
        acrossSchemas.delete(acrossSchemas.keys().next().value!);
    }
    acrossSchemas.set(key, s);
    return s;
  };

  return async (req, res, store, rawQuery) => {
    const read = await readQuery(req, res, rawQuery, limits);
    if (!read) return;
    const { isGet, document, params, raw } = read;
    const { variables, operationName } = params;
    const entries = opts.directory.catalogs();
    const { answering, errors: left } = await answeringCatalogs(entries, store, schemas);
    try {
      const across = acrossSchemaOf(answering);
      const invalid = validate(across.schema, document, specifiedRules, { maxErrors: 100 });
      if (invalid.length > 0) return sendErrors(req, res, 400, invalid.map(errorOut));
      const operation = getOperationAST(document, operationName);
      if (isGet && operation && operation.operation !== OperationTypeNode.QUERY)
        return sendErrors(req, res, 405, [{ message: 'GET answers queries only: use POST' }], {
          Allow: 'POST',
        });
      if (operation)
        try {
          checkListCost(
            listCost(document, operation, variables ?? {}, (f) => across.rootFields.has(f)),
            limits,
          );
          // The additions' joins cost what they cost per catalog, on every catalog.
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
        const tag = acrossEntityTag(entries, answering, raw);
        const lastModified = new Date(
          Math.max(0, ...answering.map((a) => a.lease.lastModified.getTime())),
        );
        headers.ETag = etagHeader(tag, gzipped);
        headers['Last-Modified'] = httpDate(lastModified);
        if (requestIsNotModified(req.headers, tag, lastModified)) {
          res.writeHead(304, headers);
          res.end();
          return;
        }
      }
      const hashes = new Map(answering.map((a) => [a.entry.name, a.lease.contentHash]));
      const rows: CatalogRow[] = [...entries].sort(byPriority).map((e) => ({
        name: e.name,
        priority: e.priority,
        availabilityMode: e.availabilityMode,
        serving: e.serving,
        contentHash: hashes.get(e.name) ?? null,
      }));
      const stop = new AbortController();
      const onClose = (): void => stop.abort(new Error('the client left'));
      res.once('close', onClose);
      let outcome: Outcome;
      try {
        outcome = await runQuery(stop, (signal) => {
          const run = new AcrossRun(
            rows,
            answering,
            across,
            variables,
            budgets,
            signal,
            (err) => stop.abort(err),
            packages,
          );
          return {
            run,
            result: execute({
              schema: across.schema,
              document,
              variableValues: variables ?? null,
              operationName: operationName ?? null,
              contextValue: run,
              abortSignal: signal,
            }),
          };
        });
      } finally {
        res.off('close', onClose);
      }
      // The turn is held until the answer is written (endpoint.ts says why).
      try {
        if (outcome.busy)
          return sendErrors(
            req,
            res,
            503,
            [{ message: 'too many GraphQL queries at once: retry' }],
            { 'Retry-After': String(GRAPHQL_RETRY_AFTER_SECONDS) },
          );
        if (outcome.run?.failure)
          return sendErrors(req, res, 400, [{ message: outcome.run.failure.message }]);
        if (outcome.late)
          return sendErrors(
            req,
            res,
            503,
            [{ message: `query exceeds its deadline of ${deadlineMs / 1000}s` }],
            { 'Retry-After': String(GRAPHQL_RETRY_AFTER_SECONDS) },
          );
        const result = outcome.result;
        if (!result || stop.signal.aborted) return;
        if (result.data === undefined)
          return sendErrors(req, res, 400, (result.errors ?? []).map(errorOut));
        const errors = [
          ...left,
          ...(outcome.run?.errors ?? []),
          ...(result.errors ?? []).map(errorOut),
        ];
        await sendResult(req, res, result, gzipped, headers, errors);
      } finally {
        outcome.leave?.();
      }
    } finally {
      for (const a of answering) a.lease.release();
    }
  };

  interface Outcome {
    result?: ExecutionResult;
    run?: AcrossRun;
    late: boolean;
    busy: boolean;
    /** Gives the turn back: the caller, once the answer is written. */
    leave?: () => void;
  }

  /** Runs the execution within the gate and the deadline. */
  async function runQuery(
    stop: AbortController,
    start: (signal: AbortSignal) => {
      run: AcrossRun;
      result: ReturnType<typeof execute>;
    },
  ): Promise<Outcome> {
    const leave = await gate.enter(stop.signal);
    if (!leave) return { late: false, busy: !stop.signal.aborted };
    let late = false;
    const timer = clock.setTimer(deadlineMs, () => {
      late = true;
      stop.abort(new Error('deadline'));
    });
    let run: AcrossRun | undefined;
    try {
      // execute throws at once when the signal has aborted already (a deadline of 0).
      const started = start(stop.signal);
      run = started.run;
      return { run, result: await started.result, late, busy: false, leave };
    } catch (err) {
      if (!stop.signal.aborted) {
        leave();
        throw err;
      }
      return { ...(run && { run }), late, busy: false, leave };
    } finally {
      timer.cancel();
    }
  }
}

// One query across catalogs as it runs (docs/graphql.md, "Across catalogs"): the catalogs it
// reads, leased with their schemas (the ones that cannot answer named in errors), and the runs
// of its root list fields, catalog by catalog in priority order, one at a time, within the
// budgets of the whole query.
import { execute } from 'graphql';
import type { ExecutionResult, GraphQLResolveInfo, GraphQLSchema } from 'graphql';
import type { LeaseSource, RevisionLease } from '../server/index.js';
import { catalogsToRead } from './across-port.js';
import type { CatalogEntry } from './across-port.js';
import { rootFieldQuery, tagWith } from './across-query.js';
import type { AcrossContext, AcrossSchema, CatalogRow } from './across-schema.js';
import type { CatalogSchemas } from './catalog-schemas.js';
import { errorOut } from './endpoint.js';
import type { ErrorOut } from './endpoint.js';
import { QueryLimitError } from './limits.js';
import type { PackageCache } from './package-cache.js';
import { QueryRun } from './query-run.js';
import type { QueryBudgets } from './query-run.js';
import { SchemaBuildError } from './schema.js';

/** A catalog the query reads: its entry, its leased revision and its schema. */
export interface Answering {
  entry: CatalogEntry;
  lease: RevisionLease;
  schema: GraphQLSchema;
}

const quoted = (name: string) => JSON.stringify(name);

/** Leases and schemas of the catalogs to read; the ones that cannot answer named in errors. */
export async function answeringCatalogs(
  entries: readonly CatalogEntry[],
  store: LeaseSource,
  schemas: CatalogSchemas,
): Promise<{ answering: Answering[]; errors: ErrorOut[] }> {
  const answering: Answering[] = [];
  const errors: ErrorOut[] = [];
  for (const entry of catalogsToRead(entries)) {
    if (!entry.serving) {
      errors.push({ message: `catalog ${quoted(entry.name)} is not being served: left out` });
      continue;
    }
    const lease = store.acquire(entry.name);
    if (!lease) {
      errors.push({
        message: `catalog ${quoted(entry.name)} is not served by this server yet: left out`,
      });
      continue;
    }
    try {
      const built = await schemas.get(lease);
      answering.push({ entry, lease, schema: built.schema });
    } catch (err) {
      // A catalog that cannot answer is left out, whatever the reason: the others answer.
      lease.release();
      errors.push({
        message:
          err instanceof SchemaBuildError
            ? `catalog ${quoted(entry.name)} has no GraphQL schema (${err.message}): left out`
            : `catalog ${quoted(entry.name)}: its revision cannot be read (${(err as Error).message}): left out`,
      });
    }
  }
  return { answering, errors };
}

/** One query across catalogs: the root lists' runs, one catalog at a time, within budgets. */
export class AcrossRun implements AcrossContext {
  readonly errors: ErrorOut[] = [];
  failure: QueryLimitError | undefined;
  private readBytes = 0;
  private answerBytes = 0;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly rows: readonly CatalogRow[],
    private readonly answering: readonly Answering[],
    private readonly across: AcrossSchema,
    private readonly variables: Record<string, unknown> | undefined,
    private readonly budgets: QueryBudgets,
    private readonly signal: AbortSignal,
    private readonly abort: (err: Error) => void,
    private readonly packages?: PackageCache,
  ) {}

  catalogRows(): readonly CatalogRow[] {
    return this.rows;
  }

  rootList(info: GraphQLResolveInfo): Promise<unknown[]> {
    // One catalog's run at a time, all root fields together: the budgets are the query's.
    const turn = this.queue.then(() => this.runField(info));
    this.queue = turn.catch(() => undefined);
    return turn;
  }

  private async runField(info: GraphQLResolveInfo): Promise<unknown[]> {
    const key = info.path.key as string;
    const items: unknown[] = [];
    for (const c of this.answering) {
      const catalog = { name: c.entry.name, schema: c.schema };
      const document = rootFieldQuery(info, catalog, this.across);
      if (!document) continue;
      this.signal.throwIfAborted();
      const run = new QueryRun(
        c.lease,
        {
          readBytes: this.budgets.readBytes - this.readBytes,
          answerBytes: this.budgets.answerBytes - this.answerBytes,
        },
        this.signal,
        (err) => {
          this.failure ??= new QueryLimitError(`${err.message} (all catalogs together)`);
          this.abort(err);
        },
        this.packages && { cache: this.packages, revision: c.lease.contentHash },
      );
      let result: ExecutionResult;
      try {
        result = await execute({
          schema: c.schema,
          document,
          variableValues: this.variables ?? null,
          contextValue: run,
          abortSignal: this.signal,
        });
      } finally {
        this.readBytes += run.readBytes;
        this.answerBytes += run.answerBytes;
      }
      this.signal.throwIfAborted();
      if (result.errors && result.errors.length > 0) {
        for (const e of result.errors)
          this.errors.push({
            ...errorOut(e),
            message: `catalog ${quoted(c.entry.name)}: ${e.message}; its ${key} are left out`,
            locations: [],
          });
        continue;
      }
      const list = result.data?.[key];
      if (!Array.isArray(list)) continue;
      tagWith(list, c.entry.name);
      items.push(...(list as unknown[]));
    }
    return items;
  }
}

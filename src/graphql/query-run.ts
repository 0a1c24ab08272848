// One query's reads: the pages its list fields ask for, read from the leased revision blob by
// blob, each blob cut down to the fields the query selects, within the query's budgets (bytes
// of blobs read, bytes of values kept for the answer). The first budget passed fails the
// query (400), and it stops reading at once.
import type { MetasQuery } from '../server/index.js';
import { jsonSizeUpTo } from './json-size.js';
import { QueryLimitError } from './limits.js';
import type { RevisionCache } from './package-cache.js';
import { remapFieldNameCached } from './names.js';
import type { BlobFields, BlobLoader } from './schema.js';
import { isObject } from './shape.js';

export interface QueryBudgets {
  /** Bytes of blobs one query may read (and parse). */
  readBytes: number;
  /** Bytes (as JSON, about) of the blob values one query may keep for its answer. */
  answerBytes: number;
}

export const DEFAULT_QUERY_BUDGETS: QueryBudgets = {
  readBytes: 64 * 1024 * 1024,
  answerBytes: 4 * 1024 * 1024,
};

const MIB = 1024 * 1024;

function mib(bytes: number): string {
  return bytes % MIB === 0 ? `${bytes / MIB} MiB` : `${bytes} bytes`;
}

/** What the run reads from: the leased revision (src/server's RevisionLease). */
export interface PagedBlobs {
  schemaBlobs(schema: string, skip: number, take: number): AsyncIterable<string>;
  selectedBlobs(query: MetasQuery, skip?: number, take?: number): AsyncIterable<string>;
}

export class QueryRun implements BlobLoader {
  readBytes = 0;
  answerBytes = 0;
  /** The budget the query passed, if any: it is answered 400 with this. */
  failure: QueryLimitError | undefined;

  constructor(
    private readonly revision: PagedBlobs,
    private readonly budgets: QueryBudgets,
    private readonly signal: AbortSignal,
    /** Called when a budget is passed (the caller aborts the execution). */
    private readonly onFailure: (err: QueryLimitError) => void = () => undefined,
    /** What the additions keep of this revision's packages across queries (package-cache.ts). */
    readonly cached?: RevisionCache,
  ) {}

  async load(
    schema: string,
    offset: number,
    limit: number,
    fields: ReadonlySet<string>,
  ): Promise<BlobFields[]> {
    const page: BlobFields[] = [];
    for await (const line of this.revision.schemaBlobs(schema, offset, limit)) {
      this.signal.throwIfAborted();
      this.count(line);
      const blob: unknown = JSON.parse(line);
      const kept: BlobFields = Object.create(null) as BlobFields;
      if (isObject(blob))
        for (const key of Object.keys(blob)) {
          const name = remapFieldNameCached(key);
          if (!fields.has(name) || Object.hasOwn(kept, name)) continue;
          kept[name] = blob[key];
          this.answerBytes += jsonSizeUpTo(blob[key], this.budgets.answerBytes);
          if (this.answerBytes > this.budgets.answerBytes)
            throw this.fail(
              `query answer exceeds ${mib(this.budgets.answerBytes)}: ask for fewer objects (limit) or fewer fields`,
            );
        }
      page.push(kept);
    }
    return page;
  }

  /**
   * The blobs a metas query selects (the additions' reads: through the revision's package and
   * name indexes), or of one schema when `query` is a schema name; each parsed whole, counted
   * against the read budget; the caller keeps what it needs of each.
   */
  async *blobs(query: MetasQuery | string, skip = 0, take = Infinity): AsyncGenerator<unknown> {
    const lines =
      typeof query === 'string'
        ? this.revision.schemaBlobs(query, skip, take)
        : this.revision.selectedBlobs(query, skip, take);
    for await (const line of lines) {
      this.signal.throwIfAborted();
      this.count(line);
      yield JSON.parse(line);
    }
  }

  /** Counts `bytes` of values the additions hold for the query against the answer budget. */
  hold(bytes: number): void {
    this.answerBytes += bytes;
    if (this.answerBytes > this.budgets.answerBytes)
      throw this.fail(
        `query answer exceeds ${mib(this.budgets.answerBytes)}: ask for fewer objects (limit) or fewer fields`,
      );
  }

  private count(line: string): void {
    this.readBytes += Buffer.byteLength(line);
    if (this.readBytes > this.budgets.readBytes)
      throw this.fail(
        `query reads more than ${mib(this.budgets.readBytes)} of blobs: ask for fewer objects (limit)`,
      );
  }

  private fail(message: string): QueryLimitError {
    const err = new QueryLimitError(message);
    if (!this.failure) {
      this.failure = err;
      this.onFailure(err);
    }
    return err;
  }
}

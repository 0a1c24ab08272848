// `<server-url>/api/v1/graphql` (docs/graphql.md, "Across catalogs"): one query over every
// serving catalog. The catalogs come from the CatalogDirectory port (priority, availabilityMode,
// Serving), their revisions from the content server's store (the revision each serves now).
// The query is validated against the schema across them (across-schema.ts); each root list
// field runs, catalog by catalog in priority order, as a query of that one field against the
// catalog's own schema (its own resolvers, reads and budgets), and the answers are
// concatenated, each object naming its catalog. A catalog that cannot answer (not Serving, not
// held here, no schema, an error in its answer) is named in `errors` and left out; the others
// answer. Request handling, limits, the deadline, ETag/304 and gzip are the per-catalog
// endpoint's (endpoint.ts: readQuery, answerQuery).
import { createHash } from 'node:crypto';
import type { ServerEndpoint } from '../server/index.js';
import { byPriority } from './across-port.js';
import type { CatalogDirectory, CatalogEntry } from './across-port.js';
import { AcrossRun, answeringCatalogs } from './across-run.js';
import type { Answering } from './across-run.js';
import { buildAcrossSchema } from './across-schema.js';
import type { AcrossSchema, CatalogRow } from './across-schema.js';
import { answerQuery, endpointParts, readQuery } from './endpoint.js';
import type { GraphqlEndpointOptions } from './endpoint.js';

/** Queries across catalogs executing at once, and waiting, per process (each reads many). */
const DEFAULT_ACROSS_RUNNING = 1;
const DEFAULT_ACROSS_WAITING = 16;
/** Schemas across catalogs kept (one per set of catalog revisions). */
const ACROSS_SCHEMAS_KEPT = 8;

/**
 * The per-catalog endpoint's options and the ClusterCatalogs (`directory`). `budgets` are for
 * the whole query, all catalogs together. Without `gate`, its own of DEFAULT_ACROSS_RUNNING and
 * DEFAULT_ACROSS_WAITING turns (the controller gives the per-catalog endpoint's, so that GraphQL
 * holds one query's memory at a time in the process). `schemas`, `packages`: share the
 * per-catalog endpoint's.
 */
export interface AcrossEndpointOptions extends GraphqlEndpointOptions {
  directory: CatalogDirectory;
}

/** The rows of `catalogs`: every ClusterCatalog by priority, with the revision it answers from. */
function catalogRows(
  entries: readonly CatalogEntry[],
  answering: readonly Answering[],
): CatalogRow[] {
  const hashes = new Map(answering.map((a) => [a.entry.name, a.lease.contentHash]));
  return [...entries].sort(byPriority).map((e) => ({
    name: e.name,
    priority: e.priority,
    availabilityMode: e.availabilityMode,
    serving: e.serving,
    contentHash: hashes.get(e.name) ?? null,
  }));
}

/** The tag of a GET answer: every catalog's state and revision (its row), and the request. */
function acrossEntityTag(rows: readonly CatalogRow[], raw: string): string {
  const state = rows.map((r) => [r.name, r.priority, r.availabilityMode, r.serving, r.contentHash]);
  return createHash('sha256')
    .update(`across\n${JSON.stringify(state)}\n${raw}`)
    .digest('hex');
}

export function createAcrossEndpoint(opts: AcrossEndpointOptions): ServerEndpoint {
  const { bounds, budgets, schemas, packages } = endpointParts(
    opts,
    DEFAULT_ACROSS_RUNNING,
    DEFAULT_ACROSS_WAITING,
  );
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
    const read = await readQuery(req, res, rawQuery, bounds.limits);
    if (!read) return;
    const entries = opts.directory.catalogs();
    const { answering, errors: left } = await answeringCatalogs(entries, store, schemas);
    try {
      const across = acrossSchemaOf(answering);
      const rows = catalogRows(entries, answering);
      await answerQuery(
        req,
        res,
        read,
        {
          schema: across.schema,
          rootFields: across.rootFields,
          validator: (raw) => ({
            tag: acrossEntityTag(rows, raw),
            lastModified: new Date(
              Math.max(0, ...answering.map((a) => a.lease.lastModified.getTime())),
            ),
          }),
          context: (signal, abort) =>
            new AcrossRun(
              rows,
              answering,
              across,
              read.params.variables,
              budgets,
              signal,
              abort,
              packages,
            ),
          // The catalogs left out, then those whose answer had errors, then the query's own.
          errorsBefore: (run) => [...left, ...run.errors],
        },
        bounds,
      );
    } finally {
      for (const a of answering) a.lease.release();
    }
  };
}

// GraphQL over a catalog revision (SPEC §4, docs/graphql.md): upstream catalogd's endpoint,
// mounted by the content server's handler through its LeasedEndpoint port.
export {
  createGraphqlEndpoint,
  DEFAULT_DEADLINE_MS,
  DEFAULT_RUNNING_QUERIES,
  DEFAULT_WAITING_QUERIES,
  MAX_BODY_BYTES,
  MAX_QUERY_BYTES,
  MAX_QUERY_TOKENS,
} from './endpoint.js';
export type { GraphqlEndpointOptions } from './endpoint.js';
export { CatalogSchemas } from './catalog-schemas.js';
export { QueryGate } from './gate.js';
export { PackageCache } from './package-cache.js';
export { DEFAULT_QUERY_LIMITS } from './limits.js';
export type { QueryLimits } from './limits.js';
export { DEFAULT_QUERY_BUDGETS } from './query-run.js';
export type { QueryBudgets } from './query-run.js';
// `<server-url>/api/v1/graphql`: the same queries across every serving catalog, by priority.
export { createAcrossEndpoint } from './across.js';
export type { AcrossEndpointOptions } from './across.js';
export type { CatalogDirectory, CatalogEntry } from './across-port.js';

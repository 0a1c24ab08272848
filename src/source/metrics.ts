// Prometheus view of the source's counters, registered on the caller's registry (never the
// global one). Values are read from SourceCounters at scrape time.
import { Counter, type Registry } from 'prom-client';
import type { RequestKind, SourceCounters } from './counters.js';

export function registerSourceMetrics(registry: Registry, counters: SourceCounters): void {
  const kinds: RequestKind[] = ['manifest', 'blob', 'token', 'upload'];
  new Counter({
    name: 'catalogd_source_requests_total',
    help: 'HTTP requests to registries, by kind (each retry and redirect counts)',
    labelNames: ['kind'],
    registers: [registry],
    collect() {
      this.reset();
      for (const k of kinds) this.inc({ kind: k }, counters.requests[k]);
    },
  });
  new Counter({
    name: 'catalogd_source_bytes_total',
    help: 'Body bytes received from (manifest, blob) or sent to (upload) registries',
    labelNames: ['kind'],
    registers: [registry],
    collect() {
      this.reset();
      for (const k of ['manifest', 'blob', 'upload'] as const)
        this.inc({ kind: k }, counters.bytes[k]);
    },
  });
  const simple = (name: string, help: string, read: () => number) =>
    new Counter({
      name,
      help,
      registers: [registry],
      collect() {
        this.reset();
        this.inc(read());
      },
    });
  simple(
    'catalogd_source_retries_total',
    'Registry requests retried after 429/5xx/network errors',
    () => counters.retries,
  );
  simple(
    'catalogd_source_pulls_total',
    'Catalog image pulls (cache hits included)',
    () => counters.pulls,
  );
  simple(
    'catalogd_source_cache_hits_total',
    'Pulls served from the digest cache',
    () => counters.cacheHits,
  );
}

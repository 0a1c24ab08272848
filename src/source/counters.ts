// Counters of registry traffic and cache use, for metrics and for tests that count requests.

export type RequestKind = 'manifest' | 'blob' | 'token' | 'upload';

export interface SourceCounters {
  /** HTTP requests sent, by kind (each retry and redirect counts). */
  requests: Record<RequestKind, number>;
  /** Body bytes received (manifest, blob) or sent (upload). */
  bytes: { manifest: number; blob: number; upload: number };
  /** Retried attempts after 429/5xx/network errors. */
  retries: number;
  pulls: number;
  cacheHits: number;
}

export function newCounters(): SourceCounters {
  return {
    requests: { manifest: 0, blob: 0, token: 0, upload: 0 },
    bytes: { manifest: 0, blob: 0, upload: 0 },
    retries: 0,
    pulls: 0,
    cacheHits: 0,
  };
}

export function snapshot(c: SourceCounters): SourceCounters {
  return { ...c, requests: { ...c.requests }, bytes: { ...c.bytes } };
}

// A stand-in ServedApi until the resource handlers (src/apiserver/index.ts, createServedApi) are
// merged: every request that passed authentication and authorization is answered 503 with a
// Status, so the front, its security and the wiring can be run and tested on their own. Swapping
// it is one import in served-view.ts.
import type { ServedApi, ViewSource } from '../ports.js';

export interface PlaceholderApiOptions {
  maxObjectBytes: number;
  blobUrl(catalog: string, blob: { schema: string; package?: string; name?: string }): string;
  defaultProfile: 'full' | 'lean' | 'none';
}

export function createServedApi(_source: ViewSource, _opts: PlaceholderApiOptions): ServedApi {
  return {
    handle(_req, res) {
      const body = JSON.stringify({
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message: 'the served API is not available in this build of catalogd-ts',
        reason: 'ServiceUnavailable',
        code: 503,
      });
      res.writeHead(503, { 'content-type': 'application/json' });
      res.end(body);
      return Promise.resolve();
    },
    close() {},
  };
}

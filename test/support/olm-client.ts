// A client that reads catalogs as OLM v1's operator-controller does: it watches a ClusterCatalog,
// and on each new status.resolvedSource.image.ref fetches `<status.urls.base>/api/v1/all` at once;
// a non-200 answer is retried; once a ref got a 200 its body is kept (operator-controller caches
// it on disk by ref) and the ref is never fetched again.
import { CatalogHasher } from '../../src/fbc/index.js';
import { createHash } from 'node:crypto';
import type { ClusterCatalog } from '../../src/api/v1/index.js';
import { Informer } from '../../src/controllers/runtime/index.js';
import { KubeClient } from '../../src/kube/index.js';
import { clusterCatalogResource } from './catalogs.js';

export interface FetchedRef {
  ref: string;
  base: string;
  /** The contentHash of the 200 body (its canonical lines hashed as the controller does). */
  bodyContentHash: string;
  etag: string;
  /** Non-200 answers before the 200, and their statuses. */
  retries: number;
  retryStatuses: number[];
  /** From the first request to the 200. */
  msToOk: number;
}

export interface OlmLikeClient {
  fetched: Map<string, FetchedRef>;
  /** Requests answered with anything but 200. */
  retryableAnswers(): number;
  stop(): Promise<void>;
}

/** The contentHash of an /api/v1/all body: what identifies the revision it is. */
export function bodyContentHash(body: string): string {
  const hasher = new CatalogHasher();
  for (const line of body.split('\n'))
    if (line) hasher.add(`sha256:${createHash('sha256').update(line).digest('hex')}`);
  return hasher.digest();
}

/** Retry pause after a non-200 (operator-controller requeues with a short backoff). */
const RETRY_MS = 20;

export function startOlmLikeClient(catalog: string, kubeconfig: string): OlmLikeClient {
  const client = new KubeClient({ kubeconfig, maxSockets: 2 });
  const res = clusterCatalogResource(client);
  const fieldSelector = `metadata.name=${catalog}`;
  const informer = new Informer<ClusterCatalog>({
    name: 'olm-like-client',
    listWatch: {
      list: (o, s) => res.list({ ...o, fieldSelector }, s),
      watch: (o, e, s) => res.watch({ ...o, fieldSelector }, e, s),
    },
  });
  const fetched = new Map<string, FetchedRef>();
  const started = new Set<string>();
  const running = new Set<Promise<void>>();
  const abort = new AbortController();

  async function fetchRef(ref: string, base: string): Promise<void> {
    const t0 = performance.now();
    const retryStatuses: number[] = [];
    while (!abort.signal.aborted) {
      let status = 0;
      try {
        const r = await fetch(`${base}/api/v1/all`, { signal: abort.signal });
        status = r.status;
        const body = await r.text();
        if (status === 200) {
          fetched.set(ref, {
            ref,
            base,
            bodyContentHash: bodyContentHash(body),
            etag: r.headers.get('etag') ?? '',
            retries: retryStatuses.length,
            retryStatuses,
            msToOk: performance.now() - t0,
          });
          return;
        }
      } catch {
        if (abort.signal.aborted) return;
      }
      retryStatuses.push(status);
      await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
    }
  }

  informer.subscribe(
    () => catalog,
    () => {
      const c = informer.get(catalog);
      const ref = c?.status?.resolvedSource?.image?.ref;
      const base = c?.status?.urls?.base;
      if (!ref || !base || started.has(ref)) return;
      started.add(ref);
      const p = fetchRef(ref, base).finally(() => running.delete(p));
      running.add(p);
    },
  );
  const run = informer.run(abort.signal);
  return {
    fetched,
    retryableAnswers: () => [...fetched.values()].reduce((n, f) => n + f.retries, 0),
    async stop() {
      abort.abort();
      await Promise.all([run, ...running]);
      client.close();
    },
  };
}

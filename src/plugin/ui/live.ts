// Live updates of the console: the ClusterCatalogs are re-read on every change the client's
// catalog watch reports (re-opened with backoff when it fails), and on a slow poll that covers
// a watch that cannot be opened at all (RBAC, proxies). Re-reads never overlap: a change during
// one asks for one more after it.
import type { UiData } from './data.js';

/** A refresh of the catalogs that coalesces the requests made while one runs. */
function coalescedRefresh(data: UiData, signal: AbortSignal): () => void {
  let running = false;
  let again = false;
  const refresh = (): void => {
    if (running) {
      again = true;
      return;
    }
    running = true;
    data
      .refreshCatalogs(signal)
      .catch(() => undefined) // the pages keep the catalogs last read
      .finally(() => {
        running = false;
        if (again && !signal.aborted) {
          again = false;
          refresh();
        }
      });
  };
  return refresh;
}

/** Keeps `data`'s catalogs current until the signal aborts; resolves once stopped. */
export async function keepCatalogsCurrent(
  data: UiData,
  signal: AbortSignal,
  pollMs = 30_000,
): Promise<void> {
  const refresh = coalescedRefresh(data, signal);
  const poll = setInterval(refresh, pollMs);
  try {
    await data.client.watchCatalogs(refresh, signal);
  } finally {
    clearInterval(poll);
  }
}

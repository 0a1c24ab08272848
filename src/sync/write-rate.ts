// A ceiling on CatalogMetadata writes a second, process-wide (--max-write-rate), for clusters
// whose other clients' consistent LISTs matter more than how soon the object view follows a new
// revision (HTTP serves it first either way). Why a rate and not the pacing window: on the
// apiserver, CatalogMetadata writes at 10 a second or more make every consistent LIST of an
// unrelated resource (kubectl get, a controller's relist) wait for its watch cache to catch up,
// up to the apiserver's 100 ms progress-request period, however idle the CPU; at 5 a second they
// do not (docs/deploy.md, "Write pacing", measured by bench/scenarios/pacing.ts). The answers to
// our writes do not show it, so pacing cannot adapt to it. Writes are spaced evenly, one slot
// each (no bursts): each moves etcd's revision once, at most `perSecond` times a second.
import type { Clock } from '../util/clock.js';
import type { CatalogMetadataWriter } from './writer-port.js';

/** Evenly spaced slots, `perSecond` a second; a slot not taken is not saved for later. */
export class WriteRateLimit {
  readonly #intervalMs: number;
  readonly #clock: Pick<Clock, 'now' | 'sleep'>;
  /** The earliest time the next write may start. */
  #next = Number.NEGATIVE_INFINITY;

  constructor(perSecond: number, clock: Pick<Clock, 'now' | 'sleep'>) {
    if (!(perSecond > 0) || !Number.isFinite(perSecond))
      throw new RangeError(`a write rate is a positive number, not ${perSecond}`);
    this.#intervalMs = 1000 / perSecond;
    this.#clock = clock;
  }

  /** Waits for this write's slot; throws the signal's reason when it aborts meanwhile. */
  async acquire(signal?: AbortSignal): Promise<void> {
    signal?.throwIfAborted();
    const now = this.#clock.now();
    const slot = Math.max(now, this.#next);
    this.#next = slot + this.#intervalMs;
    if (slot > now) await this.#clock.sleep(slot - now, signal);
    signal?.throwIfAborted();
  }
}

/** `writer` with each create, update and delete waiting for its slot of `limit`. */
export function rateLimitedWriter(
  writer: CatalogMetadataWriter,
  limit: WriteRateLimit,
): CatalogMetadataWriter {
  const out: CatalogMetadataWriter = {
    listExisting: (catalog, signal) => writer.listExisting(catalog, signal),
    create: async (obj, signal) => {
      await limit.acquire(signal);
      await writer.create(obj, signal);
    },
    update: async (obj, signal) => {
      await limit.acquire(signal);
      await writer.update(obj, signal);
    },
    delete: async (name, uid, signal) => {
      await limit.acquire(signal);
      await writer.delete(name, uid, signal);
    },
  };
  // Dry-runs store nothing (etcd's revision does not move): not limited.
  if (writer.dryRun) out.dryRun = writer.dryRun.bind(writer);
  if (writer.liveSpecDigest) out.liveSpecDigest = writer.liveSpecDigest.bind(writer);
  if (writer.observeResponses) out.observeResponses = writer.observeResponses.bind(writer);
  return out;
}

// Admission that keeps refusing a revision: without memory, every retry of the reconcile would
// write the revision's objects up to the refused one and roll them all back. The engine
// remembers a refusal per catalog and target contentHash (in memory: a restart forgets, and
// the first attempt after it refuses again); the next attempt for the same revision first asks
// the apiserver with server-side dry-run (?dryRun=All: admission runs, nothing is stored) and
// writes nothing while the refusal persists.
import { isInvalid as isAdmissionRefusal } from '../kube/errors.js';
import type { CatalogMetadataWriter } from './writer-port.js';
import { runBounded } from '../util/bounded.js';
import { SyncWriteError } from './writer-port.js';
import type { SpooledWrite, WriteSpool } from './spool.js';

export interface RememberedRefusal {
  contentHash: string;
  verb: 'create' | 'update';
  /** The refused object. */
  object: string;
}

export class AdmissionRefusals {
  /** Catalog name → its latest refusal: one entry a catalog, whatever the revisions tried. */
  readonly #byCatalog = new Map<string, RememberedRefusal>();

  /** Records `err` if it is an admission refusal of a write of this revision. */
  noteFailure(catalog: string, contentHash: string, err: unknown): void {
    if (!(err instanceof SyncWriteError) || err.verb === 'delete') return;
    if (!isAdmissionRefusal(err.cause)) return;
    this.#byCatalog.set(catalog, { contentHash, verb: err.verb, object: err.object });
  }

  /** The refusal remembered for this catalog and revision, if any. */
  get(catalog: string, contentHash: string): RememberedRefusal | undefined {
    const r = this.#byCatalog.get(catalog);
    return r?.contentHash === contentHash ? r : undefined;
  }

  /**
   * Forgets the refusal of this revision. Only of this one: a rollback to the previous revision
   * succeeds right after the refusal, and must not make the next attempt write again.
   */
  forget(catalog: string, contentHash: string): void {
    if (this.#byCatalog.get(catalog)?.contentHash === contentHash) this.#byCatalog.delete(catalog);
  }
}

export interface DryRunCheck {
  catalog: string;
  contentHash: string;
  writes: WriteSpool;
  writer: CatalogMetadataWriter;
  refusals: AdmissionRefusals;
  concurrency: number | (() => number);
  signal?: AbortSignal;
}

/**
 * Before writing a revision that admission refused last time: dry-runs the refused object, then
 * (if it passes) every other planned create and update, at most `concurrency` at a time. Throws
 * the refusal (a SyncWriteError naming the object, as the write's would) and remembers it while
 * admission still refuses; forgets it when everything passes, so the caller writes normally.
 * Errors other than refusals (a race, a busy apiserver) do not block: the writes meet them.
 */
export async function checkRememberedRefusal(check: DryRunCheck): Promise<void> {
  const { catalog, contentHash, writes, writer, refusals, signal } = check;
  const remembered = refusals.get(catalog, contentHash);
  if (!remembered || !writer.dryRun) return;
  const dryRun = writer.dryRun.bind(writer);
  const tryWrite = async (w: SpooledWrite): Promise<void> => {
    try {
      await dryRun(w.verb, w, signal);
    } catch (err) {
      signal?.throwIfAborted();
      if (!isAdmissionRefusal(err)) return;
      const refusal = new SyncWriteError(w.verb, w.name, err);
      refusals.noteFailure(catalog, contentHash, refusal);
      throw refusal;
    }
  };
  const refusedObject = remembered.object;
  // The refused object first: while admission refuses it, one request is the whole check.
  for await (const w of writes.read()) {
    if (w.name !== refusedObject) continue;
    await tryWrite(w);
    break;
  }
  async function* others(): AsyncGenerator<() => Promise<void>> {
    for await (const w of writes.read()) if (w.name !== refusedObject) yield () => tryWrite(w);
  }
  await runBounded(others(), check.concurrency);
  refusals.forget(catalog, contentHash);
}

// The memo of each catalog's last successful sync by this process (SPEC §3.3 "Steady state"):
// a reconcile that finds the same digest and options as then, with no drift seen since, skips
// the plan (a LIST of the catalog's objects and a parse of the catalog) and the writes, and
// costs O(1) whatever the catalog's size.
//
// Level-triggered and safe by construction: the memo only ever says "nothing changed since a
// sync that saw the cluster", and anything that could make that false clears it:
// - a drift event of the catalog (an object of it added or changed by someone else, or
//   deleted: the drift watch's own predicates, so exactly what queues a reconcile);
// - a relist of the drift watch (its watch ended and events may have been missed);
// - a failed sync, leadership gained (clearAll), and a restart (memory only).
// An event that arrives while a sync runs voids what that sync remembers: a sync takes a token
// before it lists the objects, and remember() with a token older than the catalog's latest
// drift stores nothing. An edit after the list is seen by the watch after the token.
import type { SyncedRevision, SyncMemoPort, SyncMemoToken } from './ports.js';

interface Entry {
  key: string;
  revision: SyncedRevision;
  /** The token of the sync that stored it. */
  since: SyncMemoToken;
}

export class SyncMemo implements SyncMemoPort {
  /** Advances with every invalidation; tokens and dirty marks are values of it. */
  #seq = 0;
  /** The latest invalidation of each catalog (small: one number per catalog name). */
  readonly #dirtiedAt = new Map<string, number>();
  #allDirtiedAt = 0;
  readonly #entries = new Map<string, Entry>();

  /**
   * `relists`: how many complete lists the drift watch has made (its informer's listCount);
   * a change voids every entry.
   */
  constructor(private readonly relists: () => number = () => 0) {}

  begin(catalog: string): SyncMemoToken {
    return { catalog, seq: this.#seq, relists: this.relists() };
  }

  lookup(catalog: string, key: string): SyncedRevision | undefined {
    const entry = this.#entries.get(catalog);
    if (!entry || entry.key !== key || !this.#cleanSince(entry.since)) return undefined;
    return entry.revision;
  }

  remember(token: SyncMemoToken, key: string, revision: SyncedRevision): void {
    if (!this.#cleanSince(token)) {
      this.#entries.delete(token.catalog);
      return;
    }
    this.#entries.set(token.catalog, { key, revision, since: token });
  }

  forget(catalog: string): void {
    this.#entries.delete(catalog);
  }

  /** Drift seen (or possibly missed) for one catalog: its next reconcile plans in full. */
  markDirty(catalog: string): void {
    this.#dirtiedAt.set(catalog, ++this.#seq);
    this.#entries.delete(catalog);
  }

  /** Every catalog plans in full next (leadership gained: another replica may have written). */
  clearAll(): void {
    this.#allDirtiedAt = ++this.#seq;
    this.#entries.clear();
  }

  #cleanSince(token: SyncMemoToken): boolean {
    return (
      (this.#dirtiedAt.get(token.catalog) ?? 0) <= token.seq &&
      this.#allDirtiedAt <= token.seq &&
      this.relists() === token.relists
    );
  }
}

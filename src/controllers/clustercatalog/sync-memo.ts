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
//
// Except the sync's own deletions (what the new revision no longer has): their watch events come
// back during or right after the sync, and taken for drift they would void the memo and queue a
// full reconcile (a LIST and a parse of the whole catalog) after every sync that deletes. A sync
// says what it deletes (deleting()), and a deletion event of one of those names is not drift
// (deletedBySync()): the object is gone, which is what the sync wanted, whoever deleted it. The
// names are what the sync's plan holds anyway; each goes as its event is seen, the rest with
// the catalog's next deleting sync, forget() or clearAll().
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
  /** Per catalog, the names its latest sync deletes whose deletion has not been seen yet. */
  readonly #deleting = new Map<string, Set<string>>();
  /** Deletion events judged the sync's own: every subscriber of one event gets one answer. */
  readonly #ownEvents = new WeakSet<object>();

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
    this.#deleting.delete(catalog);
  }

  deleting(catalog: string, names: readonly string[]): void {
    if (names.length === 0) this.#deleting.delete(catalog);
    else this.#deleting.set(catalog, new Set(names));
  }

  /**
   * Whether a deletion event is of an object the catalog's latest sync deleted (then it is not
   * drift). `event`: the deleted object as the watch delivered it, the same for every subscriber
   * of the event (the first one consumes the name, the others get the same answer).
   */
  deletedBySync(catalog: string | undefined, name: string, event: object): boolean {
    if (this.#ownEvents.has(event)) return true;
    if (catalog === undefined) return false;
    const names = this.#deleting.get(catalog);
    if (!names?.delete(name)) return false;
    if (names.size === 0) this.#deleting.delete(catalog);
    this.#ownEvents.add(event);
    return true;
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
    this.#deleting.clear();
  }

  #cleanSince(token: SyncMemoToken): boolean {
    return (
      (this.#dirtiedAt.get(token.catalog) ?? 0) <= token.seq &&
      this.#allDirtiedAt <= token.seq &&
      this.relists() === token.relists
    );
  }
}

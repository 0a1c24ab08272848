// An informer: keeps a local store of a collection up to date from list + watch, and tells
// subscribers which keys to reconcile (kube-rs's watcher → store → controller split, and
// client-go's reflector). It talks to the apiserver only through the ListWatch interface
// below, which src/kube's Resource satisfies.
//
// Unlike client-node's informers, which stop on the first error, this one restarts
// itself: a watch that ends is resumed from the last resourceVersion, a 410 Gone relists,
// any other error backs off and retries, until its signal aborts.
import type { Clock } from './clock.js';
import { realClock } from './clock.js';
import type { Random } from './backoff.js';
import { ExponentialBackoff } from './backoff.js';
import type { ListOptions, ListPage, WatchEventType, WatchOptions } from '../../kube/index.js';
import { isGone } from '../../kube/errors.js';

// The apiserver's list and watch shapes are the transport's (src/kube); this port is ours.
export type { ListOptions, ListPage, WatchEventType, WatchOptions } from '../../kube/index.js';

/**
 * list and watch of one collection. The implementation must:
 * - reject with an error for which isGone() is true when the apiserver answers
 *   410 Gone (an expired resourceVersion or continue token), including a watch ERROR
 *   event carrying a 410 Status;
 * - resolve watch() when the watch ends normally (server timeout, closed stream), reject
 *   it on any error, and end it promptly when signal aborts;
 * - deliver BOOKMARK events with an object whose resourceVersion is set.
 */
export interface ListWatch<T> {
  list(opts: ListOptions, signal: AbortSignal): Promise<ListPage<T>>;
  watch(
    opts: WatchOptions,
    onEvent: (type: WatchEventType, obj: T) => void,
    signal: AbortSignal,
  ): Promise<void>;
}

/**
 * Closes the watch for a while (watch-hold.ts: the drift watch while a large sync writes). A
 * paused informer ends its watch and opens the next one, from the last resourceVersion it had,
 * once resumed: nothing is missed and nothing relisted, unless the apiserver no longer has that
 * resourceVersion (410 Gone: a relist, as after any watch).
 */
export interface WatchPause {
  paused(): boolean;
  /** Resolves when not paused (at once if it is not), or when signal aborts. */
  whenResumed(signal: AbortSignal): Promise<void>;
  /** Calls listener whenever a pause begins; returns its removal. */
  onPause(listener: () => void): () => void;
}

/** HTTP 410 Gone: the requested resourceVersion or continue token is too old. */
export class ResourceExpiredError extends Error {
  readonly code = 410;

  constructor(message = 'resource version expired (410 Gone)') {
    super(message);
    this.name = 'ResourceExpiredError';
  }
}

/** The metadata the default key and version functions read (full or metadata-only objects). */
export interface ObjectWithMeta {
  metadata?: { name?: string; namespace?: string; resourceVersion?: string };
}

/** "namespace/name" for namespaced objects, "name" for cluster-scoped ones (client-go's MetaNamespaceKeyFunc). */
function metaNamespaceKey(obj: ObjectWithMeta): string {
  const name = obj.metadata?.name;
  if (name === undefined || name === '') throw new Error('object has no metadata.name');
  const ns = obj.metadata?.namespace;
  return ns ? `${ns}/${name}` : name;
}

function metaResourceVersion(obj: ObjectWithMeta): string | undefined {
  return obj.metadata?.resourceVersion;
}

/** Read access to an informer's local copy of the collection. */
export interface Store<T> {
  get(key: string): T | undefined;
  has(key: string): boolean;
  keys(): IterableIterator<string>;
  values(): IterableIterator<T>;
  readonly size: number;
}

/** Maps an object to the keys of the objects to reconcile (e.g. itself, or its owner). */
export type KeyMapper<T> = (obj: T) => Iterable<string> | string | undefined;

export interface InformerOptions<T> {
  /** For error reports and health checks (e.g. "clustercatalogs"). */
  name: string;
  listWatch: ListWatch<T>;
  keyOf?: (obj: T) => string;
  /** Detects unchanged objects on relist, so that they do not trigger reconciles. */
  resourceVersionOf?: (obj: T) => string | undefined;
  labelSelector?: string;
  /** List page size (default 500, client-go's). */
  pageSize?: number;
  clock?: Clock;
  random?: Random;
  /** Delay before retrying after an error: 800 ms doubling to 30 s (client-go's reflector). */
  backoff?: { initialMs: number; maxMs: number };
  /** Called for every list or watch failure it recovers from (for logs). */
  onError?: (err: unknown, during: 'list' | 'watch') => void;
  /** Pauses its watch (watch-hold.ts); none: it watches whenever it runs. */
  pause?: WatchPause;
}

/** Whether an update matters to a subscriber (controller-runtime's update predicates). */
export type UpdatePredicate<T> = (old: T, obj: T) => boolean;
/** Whether an added object matters to a subscriber (controller-runtime's create predicates). */
export type AddPredicate<T> = (obj: T) => boolean;
/**
 * Whether a deletion matters to a subscriber (controller-runtime's delete predicates); `obj` is
 * the object as last seen, the same instance for every subscriber of one event.
 */
export type DeletePredicate<T> = (obj: T) => boolean;

interface Subscription<T> {
  map: KeyMapper<T>;
  enqueue: (key: string) => void;
  updated?: UpdatePredicate<T>;
  added?: AddPredicate<T>;
  deleted?: DeletePredicate<T>;
}

type Change = 'added' | 'updated' | 'deleted';

// A watch that delivers nothing and ends sooner than this is treated as a failure, so an
// apiserver that closes watches at once does not cause a hot re-watch loop.
const MIN_HEALTHY_WATCH_MS = 1000;
const DEFAULT_PAGE_SIZE = 500;

export class Informer<T = ObjectWithMeta> implements Store<T> {
  readonly name: string;
  readonly #lw: ListWatch<T>;
  readonly #keyOf: (obj: T) => string;
  readonly #versionOf: (obj: T) => string | undefined;
  readonly #labelSelector: string | undefined;
  readonly #pageSize: number;
  readonly #clock: Clock;
  readonly #random: Random;
  readonly #backoff: ExponentialBackoff;
  readonly #onError: (err: unknown, during: 'list' | 'watch') => void;
  readonly #pause: WatchPause | undefined;

  #items = new Map<string, T>();
  #subscriptions: Array<Subscription<T>> = [];
  #synced = false;
  #syncWaiters: Array<() => void> = [];
  #lastResourceVersion: string | undefined;
  #lists = 0;
  #running = false;
  #watchStartedAt = 0;
  #watchEvents = 0;

  constructor(opts: InformerOptions<T>) {
    this.name = opts.name;
    this.#lw = opts.listWatch;
    this.#keyOf = opts.keyOf ?? (metaNamespaceKey as (obj: T) => string);
    this.#versionOf = opts.resourceVersionOf ?? (metaResourceVersion as (obj: T) => string);
    this.#labelSelector = opts.labelSelector;
    this.#pageSize = opts.pageSize ?? DEFAULT_PAGE_SIZE;
    this.#clock = opts.clock ?? realClock;
    this.#random = opts.random ?? Math.random;
    this.#backoff = new ExponentialBackoff({
      initialMs: opts.backoff?.initialMs ?? 800,
      maxMs: opts.backoff?.maxMs ?? 30_000,
      jitter: 1,
      random: this.#random,
    });
    this.#onError = opts.onError ?? (() => undefined);
    this.#pause = opts.pause;
  }

  // --- Store ---

  get(key: string): T | undefined {
    return this.#items.get(key);
  }

  has(key: string): boolean {
    return this.#items.has(key);
  }

  keys(): IterableIterator<string> {
    return this.#items.keys();
  }

  values(): IterableIterator<T> {
    return this.#items.values();
  }

  get size(): number {
    return this.#items.size;
  }

  // --- state ---

  /** True once the first complete list is in the store; stays true across relists. */
  hasSynced(): boolean {
    return this.#synced;
  }

  /** Resolves true when synced, false if signal aborts first. */
  waitForSync(signal?: AbortSignal): Promise<boolean> {
    if (this.#synced) return Promise.resolve(true);
    if (signal?.aborted) return Promise.resolve(false);
    return new Promise((resolve) => {
      const onAbort = (): void => resolve(false);
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#syncWaiters.push(() => {
        signal?.removeEventListener('abort', onAbort);
        resolve(true);
      });
    });
  }

  /** The resourceVersion the next watch starts from. */
  get lastResourceVersion(): string | undefined {
    return this.#lastResourceVersion;
  }

  /** Complete lists done so far (1 after the initial sync; more after relists). */
  get listCount(): number {
    return this.#lists;
  }

  /**
   * Sends enqueue the keys map() gives for every object that is added, changed (old and
   * new object) or deleted, starting with every object already in the store, except those the
   * predicates drop. Returns an unsubscribe function.
   */
  subscribe(
    map: KeyMapper<T>,
    enqueue: (key: string) => void,
    updated?: UpdatePredicate<T>,
    added?: AddPredicate<T>,
    deleted?: DeletePredicate<T>,
  ): () => void {
    const sub: Subscription<T> = {
      map,
      enqueue,
      ...(updated && { updated }),
      ...(added && { added }),
      ...(deleted && { deleted }),
    };
    this.#subscriptions.push(sub);
    for (const obj of this.#items.values()) this.#notify([sub], 'added', obj);
    return () => {
      this.#subscriptions = this.#subscriptions.filter((s) => s !== sub);
    };
  }

  /** Lists and watches until signal aborts; never rejects because of list or watch errors. */
  async run(signal: AbortSignal): Promise<void> {
    if (this.#running) throw new Error(`informer ${this.name} is already running`);
    this.#running = true;
    let needList = true;
    let expiredInARow = 0;
    try {
      while (!signal.aborted) {
        let during: 'list' | 'watch' = 'list';
        let delay = 0;
        try {
          if (needList) {
            await this.#listAndReplace(signal);
            needList = false;
          }
          if (signal.aborted) break;
          await this.#pause?.whenResumed(signal);
          if (signal.aborted) break;
          during = 'watch';
          const pausedDuring = await this.#watch(signal);
          expiredInARow = 0;
          // Ended by a pause: neither healthy nor failing; the next resumes where it stopped.
          if (pausedDuring) continue;
          if (this.#watchWasHealthy()) this.#backoff.reset();
          else delay = this.#backoff.next();
        } catch (err) {
          if (signal.aborted) break;
          this.#onError(err, during);
          // A watch that worked for a while before failing starts backing off afresh.
          if (during === 'watch' && this.#watchWasHealthy()) this.#backoff.reset();
          if (isGone(err)) {
            // The resourceVersion we hold is gone: only a fresh list can resync. The first
            // time is normal (compaction); repeats back off.
            needList = true;
            delay = expiredInARow++ === 0 ? 0 : this.#backoff.next();
          } else {
            // A failed list is retried as a list; a failed watch resumes from the last
            // resourceVersion, which costs no relist if the apiserver still has it.
            delay = this.#backoff.next();
          }
        }
        if (delay > 0) await this.#clock.sleep(delay, signal);
      }
    } finally {
      this.#running = false;
    }
  }

  async #listAndReplace(signal: AbortSignal): Promise<void> {
    let page: ListPage<T>;
    try {
      page = await this.#listAll(this.#pageSize, signal);
    } catch (err) {
      // An expired continue token: the list took longer than the apiserver keeps its
      // snapshot. client-go falls back to one unpaginated list; so do we.
      if (!isGone(err) || this.#pageSize === 0) throw err;
      page = await this.#listAll(0, signal);
    }
    this.#replace(page.items);
    this.#lastResourceVersion = page.resourceVersion;
    this.#lists++;
    if (!this.#synced) {
      this.#synced = true;
      const waiters = this.#syncWaiters;
      this.#syncWaiters = [];
      for (const w of waiters) w();
    }
  }

  async #listAll(pageSize: number, signal: AbortSignal): Promise<ListPage<T>> {
    const items: T[] = [];
    let resourceVersion = '';
    let token: string | undefined;
    do {
      const opts: ListOptions = {};
      if (pageSize > 0) opts.limit = pageSize;
      if (token !== undefined) opts.continue = token;
      if (this.#labelSelector !== undefined) opts.labelSelector = this.#labelSelector;
      const page = await this.#lw.list(opts, signal);
      if (token === undefined) resourceVersion = page.resourceVersion;
      for (const item of page.items) items.push(item);
      token = page.continue ? page.continue : undefined;
      // A partial list must never replace the store.
      if (signal.aborted) throw signal.reason;
    } while (token !== undefined);
    return { items, resourceVersion };
  }

  /** Watches until the watch ends; true if a pause ended it (or came before it began). */
  async #watch(signal: AbortSignal): Promise<boolean> {
    // Ended by signal or by a pause.
    const watching = new AbortController();
    const stop = (): void => watching.abort();
    signal.addEventListener('abort', stop, { once: true });
    const unsubscribe = this.#pause?.onPause(stop);
    try {
      // A pause that began between whenResumed and here.
      if (this.#pause?.paused()) return true;
      await this.#watchUntil(watching.signal);
    } catch (err) {
      // The pause's abort, however the ListWatch reports it, ends the watch as planned.
      if (!watching.signal.aborted || signal.aborted) throw err;
    } finally {
      unsubscribe?.();
      signal.removeEventListener('abort', stop);
    }
    return watching.signal.aborted && !signal.aborted;
  }

  async #watchUntil(signal: AbortSignal): Promise<void> {
    const resourceVersion = this.#lastResourceVersion ?? '';
    this.#watchStartedAt = this.#clock.now();
    this.#watchEvents = 0;
    const opts: WatchOptions = {
      resourceVersion,
      allowWatchBookmarks: true,
      // client-go's reflector: a random timeout in [5, 10) minutes.
      timeoutSeconds: Math.floor(300 * (1 + this.#random())),
    };
    if (this.#labelSelector !== undefined) opts.labelSelector = this.#labelSelector;
    await this.#lw.watch(
      opts,
      (type, obj) => {
        this.#watchEvents++;
        try {
          this.#apply(type, obj);
        } catch (err) {
          // One malformed object (e.g. no name) must not end the watch for all others.
          this.#onError(err, 'watch');
        }
      },
      signal,
    );
  }

  /** Whether the last watch delivered events or lasted a while (else it counts as failing). */
  #watchWasHealthy(): boolean {
    return (
      this.#watchEvents > 0 || this.#clock.now() - this.#watchStartedAt >= MIN_HEALTHY_WATCH_MS
    );
  }

  #apply(type: WatchEventType, obj: T): void {
    const rv = this.#versionOf(obj);
    if (rv !== undefined && rv !== '') this.#lastResourceVersion = rv;
    if (type === 'BOOKMARK') return;
    const key = this.#keyOf(obj);
    const old = this.#items.get(key);
    if (type === 'DELETED') {
      this.#items.delete(key);
      this.#notify(this.#subscriptions, 'deleted', old ?? obj, old === undefined ? undefined : obj);
      return;
    }
    this.#items.set(key, obj);
    if (old === undefined) this.#notify(this.#subscriptions, 'added', obj);
    else this.#notify(this.#subscriptions, 'updated', obj, old);
  }

  /** Swaps in a complete list, notifying only for objects added, changed or gone. */
  #replace(items: T[]): void {
    const next = new Map<string, T>();
    for (const obj of items) next.set(this.#keyOf(obj), obj);
    const previous = this.#items;
    this.#items = next;
    for (const [key, obj] of next) {
      const old = previous.get(key);
      if (old === undefined) this.#notify(this.#subscriptions, 'added', obj);
      else if (
        this.#versionOf(old) === undefined ||
        this.#versionOf(old) !== this.#versionOf(obj)
      ) {
        this.#notify(this.#subscriptions, 'updated', obj, old);
      }
    }
    for (const [key, old] of previous) {
      if (!next.has(key)) this.#notify(this.#subscriptions, 'deleted', old);
    }
  }

  /** `other`: the previous object of an update, or the last event's object of a delete. */
  #notify(subs: Array<Subscription<T>>, change: Change, obj: T, other?: T): void {
    for (const sub of subs) {
      if (change === 'updated' && other !== undefined && sub.updated && !sub.updated(other, obj)) {
        continue;
      }
      if (change === 'added' && sub.added && !sub.added(obj)) continue;
      if (change === 'deleted' && sub.deleted && !sub.deleted(obj)) continue;
      const keys = new Set<string>();
      collect(keys, sub.map(obj));
      if (other !== undefined) collect(keys, sub.map(other));
      for (const key of keys) sub.enqueue(key);
    }
  }
}

function collect(into: Set<string>, mapped: Iterable<string> | string | undefined): void {
  if (mapped === undefined) return;
  if (typeof mapped === 'string') into.add(mapped);
  else for (const k of mapped) into.add(k);
}

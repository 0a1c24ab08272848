// watch: a JSON stream of events (one WatchEvent object per line, chunked), from the state a
// resourceVersion names (or the empty state: initial ADDED events) to the current one
// (watch-plan.ts), then live on each change of the catalogs (source.subscribe). BOOKMARK events
// when allowed (periodically and before the watch ends), the WatchList protocol
// (sendInitialEvents: the initial events, then a bookmark annotated
// k8s.io/initial-events-end), timeoutSeconds, and an ERROR event (Status 410) when the revisions
// a resourceVersion names are no longer held. While open, a watch leases the revisions its state
// names, so it can send the DELETED events of a deleted ClusterCatalog.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RevisionLease } from '../server/index.js';
import type { Clock, Timer } from '../util/clock.js';
import { objectBody } from './objects-response.js';
import { SERVED_API_VERSION } from './ports.js';
import type { ViewCatalog, ViewSource } from './ports.js';
import { encodeResourceVersion } from './resource-version.js';
import type { ViewState } from './resource-version.js';
import { ApiError, unavailable } from './status.js';
import { applyStep, diffEvents, planSteps } from './watch-plan.js';
import type { PlanStep, RevisionRef } from './watch-plan.js';
import { parseWatchRequest } from './watch-request.js';
import type { ServedKind } from './served-kind.js';
import type { WatchRequest } from './watch-request.js';
import {
  currentView,
  holdRevision,
  namesRevision,
  REVISION_RETRY_AFTER_SECONDS,
  tooLarge,
  tooOld,
} from './view.js';
import type { View } from './view.js';

export const DEFAULT_BOOKMARK_INTERVAL_MS = 60_000;
export const INITIAL_EVENTS_END_ANNOTATION = 'k8s.io/initial-events-end';

export interface WatchOptions {
  clock: Clock;
  bookmarkIntervalMs: number;
}

/** Every open watch, so that close() ends them. */
export class WatchHub {
  private readonly open = new Set<() => void>();
  private readonly running = new Set<Promise<void>>();

  constructor(
    private readonly source: ViewSource,
    private readonly opts: WatchOptions,
  ) {}

  /** A watch of `kind`'s objects (of the one named `name`, when not empty). */
  async serve(
    req: IncomingMessage,
    res: ServerResponse,
    query: URLSearchParams,
    name: string,
    kind: ServedKind,
  ): Promise<void> {
    const w = parseWatchRequest(req, query, name, this.source, (q) => kind.parseSelectors(q));
    const watch = new Watch(this.source, this.opts, w, res, kind);
    this.open.add(watch.end);
    const running = watch.run();
    this.running.add(running);
    try {
      await running;
    } finally {
      this.open.delete(watch.end);
      this.running.delete(running);
    }
  }

  /** Ends every open watch; resolves once each has ended its response. */
  async close(): Promise<void> {
    for (const end of [...this.open]) end();
    await Promise.allSettled([...this.running]);
  }
}

class Watch {
  private state: ViewState;
  private readonly known = new Map<string, ViewCatalog>();
  private ended = false;
  private changed = false;
  private wake: (() => void) | undefined;
  private timers: Timer[] = [];
  private lastSent = 0;
  /**
   * The watch's own leases of the revisions its state names (each catalog's, and its
   * transition's target), by heldId. The store serves a revision only while it is the current
   * one or in its grace period, and none once its ClusterCatalog is deleted; a leased one stays
   * readable until released. Holding them, the watch can always send the next change's DELETED
   * events, whose objects are read from the revision it leaves: a deleted catalog's are sent as
   * in the CRD mode (no 410, no relist). Moved forward as each change is sent (the revision left
   * is released, so the store deletes it after its grace period), all released when it ends.
   */
  private readonly held = new Map<string, RevisionLease>();

  constructor(
    private readonly source: ViewSource,
    private readonly opts: WatchOptions,
    private readonly w: WatchRequest,
    private readonly res: ServerResponse,
    private readonly kind: ServedKind,
  ) {
    this.state = w.start;
  }

  readonly end = (): void => {
    this.ended = true;
    this.wake?.();
  };

  async run(): Promise<void> {
    const unsubscribe = this.source.subscribe(() => {
      this.changed = true;
      this.wake?.();
    });
    this.res.once('close', this.end);
    const { clock } = this.opts;
    this.timers.push(clock.setTimer(this.w.timeoutMs, this.end));
    this.res.writeHead(200, {
      'Content-Type': 'application/json',
      'Cache-Control': 'no-cache, private',
      'Transfer-Encoding': 'chunked',
    });
    this.res.flushHeaders();
    this.lastSent = clock.now();
    try {
      await this.awaitStartRevisions();
      let first = true;
      while (!this.ended) {
        this.changed = false;
        await this.catchUp();
        if (first && this.w.sendInitialEventsEnd && !this.ended) await this.bookmark(true);
        first = false;
        while (!this.ended && !this.changed) await this.idle();
      }
      if (this.w.bookmarks && !this.res.destroyed) await this.bookmark(false);
    } catch (err) {
      if (!this.res.destroyed) await this.send('ERROR', errorStatus(err));
    } finally {
      unsubscribe();
      this.releaseAll();
      for (const t of this.timers) t.cancel();
      this.res.off('close', this.end);
      // Resolved once the end is handed to the socket: WatchHub.close() waits for it.
      if (!this.res.destroyed)
        await new Promise<void>((resolve) => {
          this.res.once('close', resolve);
          this.res.end(resolve);
        });
    }
  }

  /**
   * Every revision the start state names must be held here, and the watch keeps a lease of each
   * (this.held): one this replica has not built yet (a watch resumed on a replica behind the one
   * it left) is waited for (source.waitFor), then 504 "Too large resource version" if the
   * catalog's status names it, else 410.
   */
  private async awaitStartRevisions(): Promise<void> {
    const ctl = new AbortController();
    const abort = () => ctl.abort();
    this.res.once('close', abort);
    try {
      for (const { catalog, key } of namedRevisions(this.state)) {
        const lease = await holdRevision(this.source, catalog, key, ctl.signal);
        if (lease) {
          this.keep(catalog, key, lease);
          continue;
        }
        const status = this.source.catalogs().find((c) => c.name === catalog)?.revision;
        if (namesRevision(status, key)) throw tooLarge(catalog, key);
        throw tooOld();
      }
    } finally {
      this.res.off('close', abort);
    }
  }

  /** Waits for a change, the end, or the next bookmark. */
  private async idle(): Promise<void> {
    const { clock, bookmarkIntervalMs } = this.opts;
    const due = this.lastSent + bookmarkIntervalMs - clock.now();
    if (this.w.bookmarks && due <= 0) {
      await this.bookmark(false);
      return;
    }
    await new Promise<void>((resolve) => {
      this.wake = resolve;
      if (this.w.bookmarks) this.timers.push(clock.setTimer(due, resolve));
    });
    this.wake = undefined;
  }

  /** Sends the events from the watch's state to the current one. */
  private async catchUp(): Promise<void> {
    let view: View;
    try {
      view = await currentView(this.source);
    } catch (err) {
      // A revision not held yet: the change that brings it wakes the watch again.
      if (err instanceof ApiError && err.code === 503) return;
      throw err;
    }
    try {
      for (const h of view.catalogs) this.known.set(h.catalog.name, h.catalog);
      for (const step of planSteps(this.state, view.state)) {
        if (this.ended) return;
        await this.runStep(step);
      }
    } finally {
      view.release();
    }
  }

  /** Keeps a lease of a revision the state names (one held already: the new one is released). */
  private keep(catalog: string, key: string, lease: RevisionLease): void {
    const id = heldId(catalog, key);
    if (this.held.has(id)) lease.release();
    else this.held.set(id, lease);
  }

  /** Releases the held leases of the revisions the state no longer names. */
  private releaseLeft(): void {
    const named = new Set(namedRevisions(this.state).map((r) => heldId(r.catalog, r.key)));
    for (const [id, lease] of this.held) {
      if (named.has(id)) continue;
      this.held.delete(id);
      lease.release();
    }
  }

  private releaseAll(): void {
    for (const lease of this.held.values()) lease.release();
    this.held.clear();
  }

  private async runStep(step: PlanStep): Promise<void> {
    // A revision the watch holds is read through its own lease (a step's `from` always is, its
    // `to` when it is the start state's transition's target); else the step takes one (`taken`:
    // released when it ends, but the `to` the watch keeps), 410 when the store no longer has it.
    let taken: RevisionLease[] = [];
    const lease = (ref: RevisionRef | undefined): RevisionLease | undefined => {
      if (!ref) return undefined;
      const held = this.held.get(heldId(step.catalog, ref.key));
      if (held) return held;
      const acquired = this.source.acquire(step.catalog, ref.key);
      if (!acquired) throw tooOld();
      taken.push(acquired);
      return acquired;
    };
    try {
      const from = lease(step.from);
      const to = lease(step.to);
      const { kind } = this;
      const events = diffEvents(
        from && (await kind.index(step.catalog, from)),
        to && (await kind.index(step.catalog, to)),
        step.from !== undefined && step.to !== undefined && step.from.profile !== step.to.profile,
      );
      const base: ViewState = { catalogs: this.state.catalogs };
      const stateAt = (i: number): ViewState =>
        i === events.length
          ? applyStep(base, { catalog: step.catalog, to: step.to })
          : {
              catalogs: base.catalogs,
              transition: { catalog: step.catalog, to: step.to, index: i },
            };
      if (step.start > events.length)
        throw new ApiError(
          410,
          'Expired',
          'too old resource version: it names no position of this change',
        );
      const catalog = this.catalogInfo(step.catalog);
      let i = step.start;
      const deleted = events.slice(i).filter((e) => e.type === 'DELETED');
      const changed = events.slice(i).filter((e) => e.type !== 'DELETED');
      for (const [lease, part, profile] of [
        [from, deleted, step.from?.profile],
        [to, changed, step.to?.profile],
      ] as const) {
        if (!lease || part.length === 0) continue;
        const wanted = new Map(part.map((e) => [e.object.seq, e]));
        const info: ViewCatalog = { ...catalog, profile: profile ?? 'full' };
        const read = this.kind.read(info, lease, [...wanted.keys()], this.w.selectors);
        for await (const object of read) {
          const event = wanted.get(object.seq);
          if (!event) continue;
          // Ended: the state stays before this event, so the closing bookmark does not skip it.
          if (this.ended) return;
          i++;
          this.state = stateAt(i);
          if (!object.build) continue;
          const rv = encodeResourceVersion(this.state);
          const { representation, includeObject } = this.w;
          const r = { representation, includeObject, now: this.opts.clock.now() };
          const body = objectBody(object.build(rv), this.kind.columns, r, rv);
          await this.writeLine(`{"type":"${event.type}","object":${body}}\n`);
        }
      }
      this.state = stateAt(events.length);
      // The change is sent: the watch now holds `to`, and no longer the revision it left.
      if (step.to && to && taken.includes(to)) {
        this.keep(step.catalog, step.to.key, to);
        taken = taken.filter((l) => l !== to);
      }
      this.releaseLeft();
    } finally {
      for (const l of taken) l.release();
    }
  }

  private catalogInfo(name: string): ViewCatalog {
    const now = this.source.catalogs().find((c) => c.name === name) ?? this.known.get(name);
    return (
      now ?? {
        name,
        uid: '',
        creationTimestamp: new Date(0).toISOString(),
        priority: 0,
        revision: undefined,
        profile: 'full',
      }
    );
  }

  private async bookmark(initialEventsEnd: boolean): Promise<void> {
    const metadata: Record<string, unknown> = {
      resourceVersion: encodeResourceVersion(this.state),
    };
    if (initialEventsEnd) metadata.annotations = { [INITIAL_EVENTS_END_ANNOTATION]: 'true' };
    await this.send('BOOKMARK', {
      kind: this.kind.kind,
      apiVersion: SERVED_API_VERSION,
      metadata,
    });
  }

  private async send(type: string, object: unknown): Promise<void> {
    await this.writeLine(`${JSON.stringify({ type, object })}\n`);
  }

  private async writeLine(line: string): Promise<void> {
    this.lastSent = this.opts.clock.now();
    if (this.res.write(line)) return;
    await new Promise<void>((resolve) => {
      const done = () => {
        this.res.off('drain', done);
        this.res.off('close', done);
        resolve();
      };
      this.res.once('drain', done);
      this.res.once('close', done);
    });
  }
}

/** The revisions a state names: each catalog's, and its transition's target. */
function namedRevisions(state: ViewState): Array<{ catalog: string; key: string }> {
  const named = state.catalogs.map((c) => ({ catalog: c.catalog, key: c.key }));
  const t = state.transition;
  if (t?.to) named.push({ catalog: t.catalog, key: t.to.key });
  return named;
}

function heldId(catalog: string, key: string): string {
  return `${catalog}~${key}`;
}

function errorStatus(err: unknown) {
  if (err instanceof ApiError) return err.toStatus();
  return unavailable(
    `the watch ended: ${err instanceof Error ? err.message : String(err)}`,
    REVISION_RETRY_AFTER_SECONDS,
  ).toStatus();
}

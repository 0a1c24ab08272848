// The replaced revisions in their grace period (docs/server.md, "Grace period"), per catalog,
// oldest first: still served by their revision key until their timer ends the period. The
// content store decides when a period starts and what its end does; this keeps the lists.
import type { Clock } from '../util/clock.js';
import { isRevisionOf } from '../api/v1/revision-url.js';
import type { Served } from './served-revision.js';

export class GracedRevisions {
  private readonly graced = new Map<string, Served[]>();

  constructor(private readonly clock: Pick<Clock, 'now' | 'setTimer'>) {}

  /** The catalog's graced revisions, oldest first (the live list: ending a period shortens it). */
  of(catalog: string): readonly Served[] {
    return this.graced.get(catalog) ?? [];
  }

  /** Every graced revision. */
  all(): Served[] {
    return [...this.graced.values()].flat();
  }

  /** The graced revision of the catalog that `revision` names, while its period lasts. */
  find(catalog: string, revision: string): Served | undefined {
    const now = this.clock.now();
    return this.graced
      .get(catalog)
      ?.find((g) => (g.grace?.until ?? 0) > now && isRevisionOf(g.revision.contentHash, revision));
  }

  /** Starts the revision's grace period of `ms`; `end` is called when its timer fires. */
  start(s: Served, ms: number, end: () => void): void {
    const timer = this.clock.setTimer(ms, end);
    s.grace = { until: this.clock.now() + ms, timer };
    const list = this.graced.get(s.catalog) ?? [];
    this.graced.set(s.catalog, list);
    list.push(s);
  }

  /** Takes the catalog's graced revision `hex` out of its grace period (served again), if any. */
  take(catalog: string, hex: string): Served | undefined {
    const g = this.graced.get(catalog)?.find((x) => x.hex === hex);
    if (g) this.remove(g);
    return g;
  }

  /** Ends the revision's grace period: out of the list, its timer cancelled. */
  remove(s: Served): void {
    const list = this.graced.get(s.catalog) ?? [];
    const i = list.indexOf(s);
    if (i >= 0) list.splice(i, 1);
    if (list.length === 0) this.graced.delete(s.catalog);
    s.grace?.timer.cancel();
    delete s.grace;
  }

  /** Cancels every timer and forgets every graced revision (the store's close). */
  clear(): void {
    for (const g of this.all()) g.grace?.timer.cancel();
    this.graced.clear();
  }
}

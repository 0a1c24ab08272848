// The deterministic event sequence between two states of the view (docs/served.md, "watch"):
// what a watch sends to bring a client from the state its resourceVersion names to the current
// one. A pending transition (the RV names a position inside one catalog's change) is finished
// first; then each catalog whose revision differs, in catalog name order. Within one catalog's
// change from revision A to B: DELETED for A's objects that B lacks (in A's blob order), then
// ADDED or MODIFIED for B's objects that are new or whose content differs (in B's blob order).
// The position of each event in that sequence is part of the resourceVersion of the state after
// it, so every replica sends the same events for the same start and end, and a watch resumed
// anywhere neither misses nor repeats one.
import type { IndexedObject, ObjectIndex } from './blob-entries.js';
import { sameRevision } from './resource-version.js';
import type { CatalogState, ViewState } from './resource-version.js';

export type RevisionRef = Omit<CatalogState, 'catalog'>;

/** One catalog's change, from the `start`-th event of the diff between `from` and `to` on. */
export interface PlanStep {
  catalog: string;
  from: RevisionRef | undefined;
  to: RevisionRef | undefined;
  start: number;
}

export function revisionOf(state: ViewState, catalog: string): RevisionRef | undefined {
  const c = state.catalogs.find((x) => x.catalog === catalog);
  return c && { key: c.key, profile: c.profile };
}

/** The steps from `from` to `target` (a state without transition). */
export function planSteps(from: ViewState, target: ViewState): PlanStep[] {
  const steps: PlanStep[] = [];
  const t = from.transition;
  if (t)
    steps.push({ catalog: t.catalog, from: revisionOf(from, t.catalog), to: t.to, start: t.index });
  const settled = applyStep(
    { catalogs: from.catalogs },
    t ? { catalog: t.catalog, to: t.to } : undefined,
  );
  const names = [
    ...new Set([...settled.catalogs, ...target.catalogs].map((c) => c.catalog)),
  ].sort();
  for (const catalog of names) {
    const a = revisionOf(settled, catalog);
    const b = revisionOf(target, catalog);
    if (!sameRevision(a, b)) steps.push({ catalog, from: a, to: b, start: 0 });
  }
  return steps;
}

/** The state with one catalog's revision set (undefined: removed), in name order. */
export function applyStep(
  state: ViewState,
  step: { catalog: string; to: RevisionRef | undefined } | undefined,
): ViewState {
  if (!step) return { catalogs: state.catalogs };
  const catalogs = state.catalogs.filter((c) => c.catalog !== step.catalog);
  if (step.to) catalogs.push({ catalog: step.catalog, ...step.to });
  catalogs.sort((a, b) => (a.catalog < b.catalog ? -1 : a.catalog > b.catalog ? 1 : 0));
  return { catalogs };
}

export type EventType = 'ADDED' | 'MODIFIED' | 'DELETED';

export interface DiffEvent {
  type: EventType;
  /** The object in the revision it is read from: `from` for DELETED, else `to`. */
  object: IndexedObject;
}

const EMPTY: ObjectIndex = { objects: [], byName: new Map() };

/**
 * The events of one catalog's change. `profileChanged`: every object present in both is
 * MODIFIED (the same blob makes another object under another profile).
 */
export function diffEvents(
  from: ObjectIndex | undefined,
  to: ObjectIndex | undefined,
  profileChanged: boolean,
): DiffEvent[] {
  const a = from ?? EMPTY;
  const b = to ?? EMPTY;
  const events: DiffEvent[] = [];
  for (const o of a.objects) if (!b.byName.has(o.name)) events.push({ type: 'DELETED', object: o });
  for (const o of b.objects) {
    const before = a.byName.get(o.name);
    if (!before) events.push({ type: 'ADDED', object: o });
    else if (profileChanged || before.hash !== o.hash) events.push({ type: 'MODIFIED', object: o });
  }
  return events;
}

// resourceVersion of the served view (docs/served.md, "resourceVersion"): the view's state
// written out, so that every replica computes the same string for the same state with no
// coordination: one `<catalog>~<revision key><profile>` per catalog with objects, in catalog name
// order, and during a watch's transition of one catalog the position in its deterministic event
// sequence. Only URL-safe characters (catalog names are DNS subdomains: no `_` nor `~`).
import { badRequest } from './status.js';

/** One catalog's part of the state: the revision (its 16-hex-digit key) and the profile. */
export interface CatalogState {
  catalog: string;
  key: string;
  profile: 'full' | 'lean';
}

/**
 * A catalog on its way from one revision (the state's entry; none: absent) to another: the
 * first `index` events of the diff between the two are applied.
 */
export interface Transition {
  catalog: string;
  /** Undefined: the catalog has no objects in the target state. */
  to: Omit<CatalogState, 'catalog'> | undefined;
  index: number;
}

export interface ViewState {
  /** Sorted by catalog name, one entry per catalog. */
  catalogs: CatalogState[];
  transition?: Transition;
}

const FORMAT = '1';
const PROFILE_LETTER = { full: 'f', lean: 'l' } as const;
const KEY = /^[0-9a-f]{16}$/;
const CATALOG = /^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/;

function revisionPart(s: Omit<CatalogState, 'catalog'>): string {
  return `${s.key}${PROFILE_LETTER[s.profile]}`;
}

export function encodeResourceVersion(state: ViewState): string {
  let rv = FORMAT;
  for (const c of state.catalogs) rv += `_${c.catalog}~${revisionPart(c)}`;
  const t = state.transition;
  if (t) rv += `_-${t.catalog}~${t.to ? revisionPart(t.to) : '0'}~${t.index}`;
  return rv;
}

function parseRevisionPart(s: string): Omit<CatalogState, 'catalog'> | undefined {
  const key = s.slice(0, 16);
  const p = s.slice(16);
  if (!KEY.test(key) || (p !== 'f' && p !== 'l')) return undefined;
  return { key, profile: p === 'f' ? 'full' : 'lean' };
}

/** Whether a resourceVersion means "any" (unset, "" or "0"): the current state. */
export function isAnyResourceVersion(rv: string | undefined): boolean {
  return rv === undefined || rv === '' || rv === '0';
}

/** The state a resourceVersion names; a 400 when it is not one this API wrote. */
export function decodeResourceVersion(rv: string): ViewState {
  const invalid = () => badRequest(`invalid resource version "${rv}"`);
  const parts = rv.split('_');
  if (parts[0] !== FORMAT) throw invalid();
  const state: ViewState = { catalogs: [] };
  for (const part of parts.slice(1)) {
    if (state.transition) throw invalid();
    if (part.startsWith('-')) {
      const [catalog, to, index] = part.slice(1).split('~');
      const n = Number(index);
      const target = to === '0' ? undefined : parseRevisionPart(to ?? '');
      if (!catalog || !CATALOG.test(catalog) || (to !== '0' && !target)) throw invalid();
      if (!/^(0|[1-9][0-9]{0,8})$/.test(index ?? '')) throw invalid();
      state.transition = { catalog, to: target, index: n };
      continue;
    }
    const [catalog, revision, extra] = part.split('~');
    const parsed = parseRevisionPart(revision ?? '');
    if (!catalog || !CATALOG.test(catalog) || !parsed || extra !== undefined) throw invalid();
    const last = state.catalogs.at(-1);
    if (last && !(last.catalog < catalog)) throw invalid();
    state.catalogs.push({ catalog, ...parsed });
  }
  return state;
}

export function sameRevision(
  a: Omit<CatalogState, 'catalog'> | undefined,
  b: Omit<CatalogState, 'catalog'> | undefined,
): boolean {
  return a?.key === b?.key && a?.profile === b?.profile;
}

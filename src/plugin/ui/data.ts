// What the pages read, through the client library, cached per catalog revision: the rows of a
// catalog's packages (package, channel and deprecations blobs, then only the default channels'
// head bundles by name) are kept while the catalog's contentHash stays the same, and a package
// page reads only that package's blobs (`package=P` selected on the server), never the catalog.
// On a lean catalog (SPEC §2.2) the objects lack the icon and the bundles' CSV metadata: the
// heads are fetched whole from the content server (a few at a time), as `kubectl catalog
// packages` does, and an icon only when the browser asks for it, then kept for the revision.
//
// Catalog content is hostile input (SPEC §5.2): each catalog's rows are read and turned into
// cards on their own, so a catalog whose rows cannot be built is reported and left out, never
// taking another catalog's down; a card holds only what the page shows, read defensively (a
// value of the wrong JSON type is absent) and cut to bounded lengths, made once per revision
// with the event loop given a turn every CARD_SLICE characters of work.
import { createHash } from 'node:crypto';
import type { CatalogMetadata, ClusterCatalog } from '../../api/v1/index.js';
import { LEAN_PART_ICON } from '../../api/v1/index.js';
import type {
  Provider,
  CatalogClient,
  GVK,
  PackageFacts,
  PackageRow,
  PackageView,
} from '../../client/index.js';
import {
  contentOf,
  isPackageBlob,
  isServing,
  leftOut,
  packageRows,
  packageView,
} from '../../client/index.js';
import { Yielder } from '../../util/yielder.js';
import type { DecodedIcon } from './icon.js';
import { decodeIcon } from './icon.js';
import { EXCERPT_SCAN, cardExcerpt, excerpt } from './markdown.js';
import type { PageJob } from './render-thread.js';
import { PageRenderer } from './render-thread.js';

/**
 * A package's card on the packages page: what the page shows of it, each text a string cut to
 * CARD_TEXT characters (DEPRECATION_TEXT for the deprecation message) or absent, and the facts
 * the filters read.
 */
export interface PackageCard {
  catalog: string;
  /** The catalog's contentHash the card is of. */
  contentHash: string;
  name: string;
  /** What the filters read of the package (the client's packageFacts). */
  facts: PackageFacts;
  displayName?: string;
  provider?: string;
  headVersion?: string;
  defaultChannel?: string;
  deprecated?: string;
  /** The start of the description as plain text (markdown.ts, cardExcerpt). */
  excerpt: string;
  hasIcon: boolean;
}

/** A catalog whose cards could not be made, and why (an error's message, cut). */
export interface CatalogFailure {
  catalog: string;
  message: string;
}

/** The cards of the shown catalogs, and the catalogs left out. */
export interface PackageList {
  cards: PackageCard[];
  failed: CatalogFailure[];
}

/** Characters of a card's display name, provider, version or channel. */
export const CARD_TEXT = 200;
/** Characters of a card's deprecation message (its tooltip). */
export const DEPRECATION_TEXT = 500;
/** Characters of a failure's message on the page. */
const FAILURE_TEXT = 300;
/** Characters (and icon bytes) of work between two turns of the event loop. */
export const CARD_SLICE = 256 * 1024;

/** A catalog value shown as text: a string cut to `max` characters, else absent. */
const shown = (v: unknown, max: number): string | undefined =>
  typeof v === 'string' && v !== '' ? excerpt(v, max) : undefined;

/** An error's message as a page shows it: a string, cut. */
export function failureMessage(err: unknown): string {
  const m = err instanceof Error ? err.message : undefined;
  return typeof m === 'string' && m !== '' ? excerpt(m, FAILURE_TEXT) : 'unknown error';
}

/** By package name, then catalog: the order of `kubectl catalog packages`. */
function compareCards(a: PackageCard, b: PackageCard): number {
  if (a.name !== b.name) return a.name < b.name ? -1 : 1;
  return a.catalog < b.catalog ? -1 : a.catalog > b.catalog ? 1 : 0;
}

interface CatalogRows {
  rows: PackageCard[];
  icons: Map<string, DecodedIcon>;
  /** Lean: the package objects whose icon was left out, fetched on demand (then in `fetched`). */
  leanIcons: Map<string, CatalogMetadata>;
  fetched: Map<string, Promise<DecodedIcon | undefined>>;
}

interface CatalogEntry {
  contentHash: string;
  rows: Promise<CatalogRows>;
}

/** Icons fetched from the content server at once (the browser asks for many lazily). */
const ICON_FETCHES = 4;

const VIEW_CACHE = 200;

interface ViewEntry {
  contentHash: string;
  view: Promise<PackageView>;
  /** The package page's body, once asked for. */
  page?: Promise<string>;
}

export class UiData {
  private catalogsNow: ClusterCatalog[] = [];
  private readonly byCatalog = new Map<string, CatalogEntry>();
  private readonly views = new Map<string, ViewEntry>();
  private readonly pages = new PageRenderer();
  private iconFetches = 0;
  private readonly iconQueue: Array<() => void> = [];

  constructor(
    readonly client: CatalogClient,
    readonly only?: string,
  ) {}

  /** Reads the ClusterCatalogs (the --catalog one only, when given) and drops stale caches. */
  async refreshCatalogs(signal?: AbortSignal): Promise<ClusterCatalog[]> {
    let list = await this.client.listCatalogs(signal);
    if (this.only !== undefined) list = list.filter((c) => c.metadata.name === this.only);
    this.catalogsNow = list;
    for (const [name, e] of this.byCatalog) {
      const c = list.find((x) => x.metadata.name === name);
      if (c?.status?.contentHash !== e.contentHash) this.byCatalog.delete(name);
    }
    return list;
  }

  get catalogs(): ClusterCatalog[] {
    return this.catalogsNow;
  }

  /** A tag of what the pages show: every catalog's name, contentHash and Serving state. */
  get revision(): string {
    const h = createHash('sha256');
    for (const c of this.catalogsNow)
      h.update(`${c.metadata.name}\0${c.status?.contentHash ?? ''}\0${isServing(c)}\n`);
    return h.digest('hex').slice(0, 32);
  }

  /**
   * The cards of every Serving catalog (one catalog with --catalog), or of `catalog` only, each
   * catalog's cached per revision; a catalog whose cards cannot be made is in `failed`.
   */
  async packages(catalog?: string): Promise<PackageList> {
    const cards: PackageCard[] = [];
    const failed: CatalogFailure[] = [];
    for (const c of this.catalogsNow.filter(isServing)) {
      if (catalog !== undefined && c.metadata.name !== catalog) continue;
      try {
        for (const card of (await this.entry(c)).rows) cards.push(card);
      } catch (err) {
        failed.push({ catalog: c.metadata.name, message: failureMessage(err) });
      }
    }
    return { cards: cards.sort(compareCards), failed };
  }

  /**
   * The package's icon, when the cached rows of its catalog at this revision have one; on a lean
   * catalog, the package blob fetched whole the first time (ICON_FETCHES at once); undefined
   * when that fetch fails.
   */
  async icon(catalog: string, pkg: string): Promise<DecodedIcon | undefined> {
    const c = this.catalogsNow.find((x) => x.metadata.name === catalog);
    if (!c || !isServing(c)) return undefined;
    let e: CatalogRows;
    try {
      e = await this.entry(c);
    } catch {
      return undefined; // the catalog's rows failed (its page says so): no picture
    }
    const have = e.icons.get(pkg);
    if (have) return have;
    const obj = e.leanIcons.get(pkg);
    if (!obj) return undefined;
    let icon = e.fetched.get(pkg);
    if (!icon) {
      icon = this.boundedIconFetch(async () => {
        const b = await this.client.blobOf(obj);
        return isPackageBlob(b) ? decodeIcon(b.icon) : undefined;
      });
      icon.catch(() => e.fetched.delete(pkg));
      e.fetched.set(pkg, icon);
    }
    try {
      return await icon;
    } catch {
      // The content server cannot be read (or served another blob): no picture (404) rather
      // than an error page for an <img>; tried again on the next request.
      return undefined;
    }
  }

  private async boundedIconFetch<T>(fn: () => Promise<T>): Promise<T> {
    if (this.iconFetches >= ICON_FETCHES) await new Promise<void>((r) => this.iconQueue.push(r));
    this.iconFetches++;
    try {
      return await fn();
    } finally {
      this.iconFetches--;
      this.iconQueue.shift()?.();
    }
  }

  private entry(c: ClusterCatalog): CatalogEntry['rows'] {
    const name = c.metadata.name;
    const contentHash = c.status!.contentHash!;
    let e = this.byCatalog.get(name);
    if (e?.contentHash !== contentHash) {
      e = { contentHash, rows: this.readRows(name) };
      e.rows.catch(() => this.byCatalog.delete(name));
      this.byCatalog.set(name, e);
    }
    return e.rows;
  }

  /** The catalog's cards from its rows with the heads' facts (client's packageRows). */
  private async readRows(catalog: string): Promise<CatalogRows> {
    const { rows } = await packageRows(this.client, { catalog, withHeads: true });
    const icons = new Map<string, DecodedIcon>();
    const leanIcons = new Map<string, CatalogMetadata>();
    const cards: PackageCard[] = [];
    const turns = new Yielder(CARD_SLICE);
    for (const r of rows) {
      const card = cardOf(r, icons, leanIcons);
      if (card) cards.push(card);
      await turns.charge(workOf(r));
    }
    return { rows: cards, icons, leanIcons, fetched: new Map() };
  }

  /**
   * The bundles of the shown catalogs that provide the API (olm.gvk): client's providersOf; a
   * catalog whose content cannot be read is in `failed` (named on the page), the others answered.
   */
  async providers(gvk: GVK): Promise<{ providers: Provider[]; failed: CatalogFailure[] }> {
    // A catalog that is not Serving shows nothing (rather than waiting for its sync).
    if (this.only !== undefined && !this.catalogsNow.some(isServing))
      return { providers: [], failed: [] };
    const found = await this.client.providersOf(
      gvk,
      this.only !== undefined ? { catalog: this.only } : {},
    );
    const failed = found.failed.map((f) => ({ catalog: f.catalog, message: f.reason }));
    return { providers: found.providers, failed };
  }

  /** One package's blobs (package, channels, bundles, deprecations) in one consistent list. */
  async packageView(catalog: string, pkg: string): Promise<PackageView | undefined> {
    return this.viewEntry(catalog, pkg)?.view;
  }

  /**
   * The package page's body (pages.ts packagePage), rendered in the page worker; without an
   * upgrades query, once per package and revision. Undefined when the catalog is not shown.
   */
  async packagePage(
    catalog: string,
    pkg: string,
    upgrades?: PageJob['upgrades'],
  ): Promise<string | undefined> {
    const e = this.viewEntry(catalog, pkg);
    if (!e) return undefined;
    if (upgrades !== undefined) return this.pages.packagePage({ view: await e.view, upgrades });
    if (!e.page) {
      const page = e.view.then((view) => this.pages.packagePage({ view }));
      page.catch(() => {
        if (e.page === page) delete e.page;
      });
      e.page = page;
    }
    return e.page;
  }

  /** Stops the page worker. */
  close(): Promise<void> {
    return this.pages.close();
  }

  private viewEntry(catalog: string, pkg: string): ViewEntry | undefined {
    const c = this.catalogsNow.find((x) => x.metadata.name === catalog);
    if (!c || !isServing(c)) return undefined;
    const key = `${catalog}\0${pkg}`;
    const hit = this.views.get(key);
    if (hit && hit.contentHash === c.status!.contentHash) return hit;
    const view = this.readView(catalog, pkg);
    view.catch(() => this.views.delete(key));
    this.views.delete(key);
    const e: ViewEntry = { contentHash: c.status!.contentHash!, view };
    this.views.set(key, e);
    if (this.views.size > VIEW_CACHE) this.views.delete(this.views.keys().next().value!);
    return e;
  }

  /** One package's blobs with its default head whole (client's packageView). */
  private readView(catalog: string, pkg: string): Promise<PackageView> {
    return packageView(this.client, catalog, pkg, { wholeHead: true });
  }
}

/** What making a row's card costs: its icon's bytes and the description's part read. */
function workOf(r: PackageRow): number {
  const icon: unknown = r.pkg.icon;
  const b64 =
    typeof icon === 'object' && icon !== null ? (icon as Record<string, unknown>).base64data : '';
  const d = r.facts?.csvDescription ?? r.pkg.description;
  return (
    256 +
    (typeof b64 === 'string' ? b64.length : 0) +
    (typeof d === 'string' ? Math.min(d.length, EXCERPT_SCAN) : 0)
  );
}

/**
 * A row's card (undefined for a package without a name or facts): the icon decoded apart (into
 * `icons`, or into `leanIcons` when a lean object left it out), every shown value a bounded
 * string or absent.
 */
export function cardOf(
  r: PackageRow,
  icons = new Map<string, DecodedIcon>(),
  leanIcons = new Map<string, CatalogMetadata>(),
): PackageCard | undefined {
  const name = r.pkg.name;
  if (typeof name !== 'string' || !r.facts) return undefined;
  const icon = decodeIcon(r.pkg.icon);
  if (icon) icons.set(name, icon);
  if (r.leanObject && leftOut(contentOf(r.leanObject), LEAN_PART_ICON))
    leanIcons.set(name, r.leanObject);
  const f = r.facts;
  const displayName = shown(f.displayName, CARD_TEXT);
  const provider = shown(f.provider, CARD_TEXT);
  const headVersion = shown(f.headVersion, CARD_TEXT);
  const defaultChannel = shown(f.defaultChannel, CARD_TEXT);
  const deprecated =
    typeof r.deprecated === 'string' ? excerpt(r.deprecated, DEPRECATION_TEXT) : undefined;
  return {
    catalog: r.catalog,
    contentHash: r.contentHash,
    name,
    facts: f,
    ...(displayName !== undefined && { displayName }),
    ...(provider !== undefined && { provider }),
    ...(headVersion !== undefined && { headVersion }),
    ...(defaultChannel !== undefined && { defaultChannel }),
    ...(deprecated !== undefined && { deprecated }),
    excerpt: cardExcerpt(f.csvDescription ?? r.pkg.description),
    hasIcon: icon !== undefined || leanIcons.has(name),
  };
}

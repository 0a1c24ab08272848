// What the pages read, through the client library, cached per catalog revision: the rows of a
// catalog's packages (package, channel and deprecations blobs, then only the default channels'
// head bundles by name) are kept while the catalog's contentHash stays the same, and a package
// page reads only that package's blobs (`package=P` selected on the server), never the catalog.
// On a lean catalog (SPEC §2.2) the objects lack the icon and the bundles' CSV metadata: the
// heads are fetched whole from the content server (a few at a time), as `kubectl catalog
// packages` does, and an icon only when the browser asks for it, then kept for the revision.
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
  comparePackageRows,
  contentOf,
  isPackageBlob,
  isServing,
  leftOut,
  packageRows,
  packageView,
} from '../../client/index.js';
import type { DecodedIcon } from './icon.js';
import { decodeIcon } from './icon.js';

/** A package's card on the packages page: its row with the head's facts, without its icon. */
export interface PackageCard extends PackageRow {
  facts: PackageFacts;
  hasIcon: boolean;
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

export class UiData {
  private catalogsNow: ClusterCatalog[] = [];
  private readonly byCatalog = new Map<string, CatalogEntry>();
  private readonly views = new Map<string, { contentHash: string; view: Promise<PackageView> }>();
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

  /** The packages of every Serving catalog (one catalog with --catalog), cached per revision. */
  async packages(): Promise<PackageCard[]> {
    const out: PackageCard[] = [];
    for (const c of this.catalogsNow.filter(isServing)) out.push(...(await this.entry(c)).rows);
    return out.sort(comparePackageRows);
  }

  /**
   * The package's icon, when the cached rows of its catalog at this revision have one; on a lean
   * catalog, the package blob fetched whole the first time (ICON_FETCHES at once); undefined
   * when that fetch fails.
   */
  async icon(catalog: string, pkg: string): Promise<DecodedIcon | undefined> {
    const c = this.catalogsNow.find((x) => x.metadata.name === catalog);
    if (!c || !isServing(c)) return undefined;
    const e = await this.entry(c);
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

  /** The catalog's rows with the heads' facts (client's packageRows), icons decoded apart. */
  private async readRows(catalog: string): Promise<CatalogRows> {
    const { rows } = await packageRows(this.client, { catalog, withHeads: true });
    const icons = new Map<string, DecodedIcon>();
    const leanIcons = new Map<string, CatalogMetadata>();
    const cards = rows.map(({ leanObject, ...r }): PackageCard => {
      const icon = decodeIcon(r.pkg.icon);
      if (icon) icons.set(r.pkg.name, icon);
      if (leanObject && leftOut(contentOf(leanObject), LEAN_PART_ICON))
        leanIcons.set(r.pkg.name, leanObject);
      return {
        ...r,
        pkg: { ...r.pkg, icon: undefined },
        facts: r.facts!,
        hasIcon: icon !== undefined || leanIcons.has(r.pkg.name),
      };
    });
    return { rows: cards, icons, leanIcons, fetched: new Map() };
  }

  /** The bundles of the shown catalogs that provide the API (olm.gvk): client's providersOf. */
  async providers(gvk: GVK): Promise<Provider[]> {
    if (this.only === undefined) return (await this.client.providersOf(gvk)).providers;
    // A catalog that is not Serving shows nothing (rather than waiting for its sync).
    if (!this.catalogsNow.some(isServing)) return [];
    return (await this.client.providersOf(gvk, { catalog: this.only })).providers;
  }

  /** One package's blobs (package, channels, bundles, deprecations) in one consistent list. */
  async packageView(catalog: string, pkg: string): Promise<PackageView | undefined> {
    const c = this.catalogsNow.find((x) => x.metadata.name === catalog);
    if (!c || !isServing(c)) return undefined;
    const key = `${catalog}\0${pkg}`;
    const hit = this.views.get(key);
    if (hit && hit.contentHash === c.status!.contentHash) return hit.view;
    const view = this.readView(catalog, pkg);
    view.catch(() => this.views.delete(key));
    this.views.delete(key);
    this.views.set(key, { contentHash: c.status!.contentHash!, view });
    if (this.views.size > VIEW_CACHE) this.views.delete(this.views.keys().next().value!);
    return view;
  }

  /** One package's blobs with its default head whole (client's packageView). */
  private readView(catalog: string, pkg: string): Promise<PackageView> {
    return packageView(this.client, catalog, pkg, { wholeHead: true });
  }
}

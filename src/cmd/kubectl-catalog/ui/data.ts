// What the pages read, through the client library, cached per catalog revision: the rows of a
// catalog's packages (package, channel and deprecations blobs, then only the default channels'
// head bundles by name) are kept while the catalog's contentHash stays the same, and a package
// page reads only that package's blobs (`package=P` selected on the server), never the catalog.
// On a lean catalog (SPEC §2.2) the objects lack the icon and the bundles' CSV metadata: the
// heads are fetched whole from the content server (a few at a time), as `kubectl catalog
// packages` does, and an icon only when the browser asks for it, then kept for the revision.
import { createHash } from 'node:crypto';
import type { CatalogMetadata, ClusterCatalog } from '../../../api/v1/index.js';
import { LEAN_PART_ICON } from '../../../api/v1/index.js';
import type {
  Provider,
  BundleBlob,
  CatalogClient,
  ChannelBlob,
  DeprecationsBlob,
  GVK,
  PackageBlob,
  PackageFacts,
} from '../../../client/index.js';
import {
  InconsistentListError,
  SCHEMA_BUNDLE,
  SCHEMA_CHANNEL,
  SCHEMA_DEPRECATIONS,
  SCHEMA_PACKAGE,
  channelHead,
  deprecationMessage,
  gvkProviders,
  isBundleBlob,
  isChannelBlob,
  isDeprecationsBlob,
  isPackageBlob,
  isServing,
  leftOut,
  packageFacts,
  resolverBlob,
  withWholeDefaultHead,
} from '../../../client/index.js';
import type { DecodedIcon } from './icon.js';
import { decodeIcon } from './icon.js';

export interface PackageRow {
  catalog: string;
  contentHash: string;
  pkg: PackageBlob;
  channels: number;
  deprecated?: string;
  facts: PackageFacts;
  hasIcon: boolean;
}

export interface PackageView {
  catalog: string;
  contentHash: string;
  pkg: PackageBlob;
  channels: ChannelBlob[];
  bundles: BundleBlob[];
  deprecations?: DeprecationsBlob;
}

interface CatalogRows {
  rows: PackageRow[];
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

/** Head bundle names per request (keeps request lines short). */
const HEAD_CHUNK = 100;
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
  async packages(): Promise<PackageRow[]> {
    const out: PackageRow[] = [];
    for (const c of this.catalogsNow.filter(isServing)) out.push(...(await this.entry(c)).rows);
    return out.sort((a, b) =>
      a.pkg.name !== b.pkg.name
        ? a.pkg.name < b.pkg.name
          ? -1
          : 1
        : a.catalog < b.catalog
          ? -1
          : 1,
    );
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

  private async readRows(catalog: string): Promise<CatalogRows> {
    for (let attempt = 1; ; attempt++) {
      const list = await this.client.consistentList({
        catalog,
        schema: [SCHEMA_PACKAGE, SCHEMA_CHANNEL, SCHEMA_DEPRECATIONS],
      });
      const pkgs: PackageBlob[] = [];
      const channels = new Map<string, ChannelBlob[]>();
      const deprecations = new Map<string, DeprecationsBlob>();
      const leanIcons = new Map<string, CatalogMetadata>();
      const contents = await this.client.resolverContents(list.items);
      for (const [i, c] of contents.entries()) {
        const b = resolverBlob(c);
        if (isPackageBlob(b) && leftOut(c, LEAN_PART_ICON)) leanIcons.set(b.name, list.items[i]!);
        if (isPackageBlob(b)) pkgs.push(b);
        else if (isDeprecationsBlob(b)) deprecations.set(b.package, b);
        else if (isChannelBlob(b)) channels.set(b.package, [...(channels.get(b.package) ?? []), b]);
      }
      const heads = new Set<string>();
      for (const p of pkgs) {
        const ch = (channels.get(p.name) ?? []).find((c) => c.name === p.defaultChannel);
        const head = ch ? channelHead(ch).head : undefined;
        if (head !== undefined) heads.add(head);
      }
      const names = [...heads].sort();
      const bundles = new Map<string, BundleBlob[]>();
      let same = true;
      for (let i = 0; i < names.length && same; i += HEAD_CHUNK) {
        const part = await this.client.consistentList({
          catalog,
          schema: SCHEMA_BUNDLE,
          name: names.slice(i, i + HEAD_CHUNK),
        });
        same = part.contentHash === list.contentHash;
        // The heads whole: their CSV metadata (fetched when lean, a few at a time).
        for (const b of await this.client.blobsOf(part.items)) {
          if (isBundleBlob(b)) bundles.set(b.package, [...(bundles.get(b.package) ?? []), b]);
        }
      }
      if (!same) {
        if (attempt < 3) continue;
        throw new InconsistentListError(
          `catalog ${catalog} changed between the list of its packages and of their head bundles three times; reload later`,
        );
      }
      const icons = new Map<string, DecodedIcon>();
      const rows = pkgs.map((p): PackageRow => {
        const chs = channels.get(p.name) ?? [];
        const icon = decodeIcon(p.icon);
        if (icon) icons.set(p.name, icon);
        const deprecated = deprecationMessage(deprecations.get(p.name), SCHEMA_PACKAGE);
        return {
          catalog,
          contentHash: list.contentHash!,
          pkg: { ...p, icon: undefined },
          channels: chs.length,
          ...(deprecated !== undefined && { deprecated }),
          facts: packageFacts(p, chs, bundles.get(p.name) ?? []),
          hasIcon: icon !== undefined || leanIcons.has(p.name),
        };
      });
      return { rows, icons, leanIcons, fetched: new Map() };
    }
  }

  /**
   * The bundles of the shown Serving catalogs that provide the API (olm.gvk): the bundles are
   * paged through and only the providers kept, as `kubectl catalog provides` does.
   */
  async providers(gvk: GVK): Promise<Provider[]> {
    const out: Provider[] = [];
    for (const c of this.catalogsNow.filter(isServing)) {
      const list = await this.client.consistentList(
        { catalog: c.metadata.name, schema: SCHEMA_BUNDLE },
        {
          keep: (o) =>
            o.spec.content === undefined ||
            gvkProviders([o.spec.content as unknown as BundleBlob], gvk).length > 0,
        },
      );
      for (const content of await this.client.resolverContents(list.items)) {
        const b = resolverBlob(content);
        if (isBundleBlob(b) && gvkProviders([b], gvk).length > 0)
          out.push({ catalog: c.metadata.name, bundle: b });
      }
    }
    return out;
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

  private async readView(catalog: string, pkg: string): Promise<PackageView> {
    const list = await this.client.consistentList({
      catalog,
      packageOrName: pkg,
      schema: [SCHEMA_PACKAGE, SCHEMA_CHANNEL, SCHEMA_BUNDLE, SCHEMA_DEPRECATIONS],
    });
    let p: PackageBlob | undefined;
    const channels: ChannelBlob[] = [];
    let bundles: BundleBlob[] = [];
    let deprecations: DeprecationsBlob | undefined;
    for (const c of await this.client.resolverContents(list.items)) {
      const b = resolverBlob(c);
      if (isPackageBlob(b) && b.name === pkg) p = b;
      else if (isChannelBlob(b) && b.package === pkg) channels.push(b);
      else if (isBundleBlob(b) && b.package === pkg) bundles.push(b);
      else if (isDeprecationsBlob(b) && b.package === pkg) deprecations = b;
    }
    if (!p) throw new PackageNotFound(catalog, pkg);
    channels.sort((a, b) => (a.name < b.name ? -1 : 1));
    // The default channel's head whole (lean: fetched), for the details the page shows.
    bundles = await withWholeDefaultHead(this.client, p, channels, bundles, list.items);
    return {
      catalog,
      contentHash: list.contentHash!,
      pkg: p,
      channels,
      bundles,
      ...(deprecations && { deprecations }),
    };
  }
}

export class PackageNotFound extends Error {
  constructor(
    readonly catalog: string,
    readonly pkg: string,
  ) {
    super(`package ${JSON.stringify(pkg)} not found in catalog ${JSON.stringify(catalog)}`);
  }
}

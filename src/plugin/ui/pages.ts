// The pages, rendered on the server as plain HTML (they work without JavaScript); /static/ui.js
// adds live updates and the copy button. Every catalog string goes through `html` (escaped).
// The packages page gives the event loop a turn every PAGE_SLICE characters of work; a package
// page is rendered in a worker (render-thread.ts), its upgrade graphs drawn within bounds.
import { dump } from 'js-yaml';
import type { ClusterCatalog } from '../../api/v1/index.js';
import { TYPE_PROGRESSING, TYPE_SERVING, findCondition } from '../../api/v1/index.js';
import type {
  ChannelBlob,
  DeprecationsBlob,
  PackageFacts,
  PackageFilter,
  Provider,
  UpgradeGraph,
} from '../../client/index.js';
import {
  INSTALL_MODES,
  UnknownBundleError,
  SCHEMA_BUNDLE,
  SCHEMA_CHANNEL,
  bundleGvks,
  bundleProperties,
  bundleVersion,
  channelHead,
  channelsOf,
  deprecationMessage,
  formatGvk,
  matchesPackageFilter,
  packageDetails,
  resolveInstalled,
  sortBundlesByVersion,
  sortProviders,
  upgradeGraph,
  upgradesFrom,
  versionMap,
} from '../../client/index.js';
import type { PackageDetails, PackageView } from '../../client/index.js';
import { Yielder } from '../../util/yielder.js';
import type { PackageCard, PackageList } from './data.js';
import type { SafeHtml } from './html.js';
import { html, packageHref, safeUrl, seg, tableHead, trusted } from './html.js';
import { graphSvg } from './graph-svg.js';
import { renderMarkdown } from './markdown.js';

/** Characters of work (text searched, markup made) on the packages page between two turns. */
export const PAGE_SLICE = 256 * 1024;
/** Entries of a channel whose upgrade graph is drawn. */
export const MAX_GRAPH_ENTRIES = 1000;
/** skipRange checks (entries with a skipRange × entries) of a channel whose graph is drawn. */
export const MAX_GRAPH_RANGE_CHECKS = 250_000;
/** Upgrade edges of a graph that is drawn. */
export const MAX_GRAPH_EDGES = 20_000;

export function layout(title: string, body: SafeHtml, revision: string): string {
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>${title} · kubectl catalog ui</title>
        <link rel="stylesheet" href="/static/ui.css" />
        <script src="/static/ui.js" defer></script>
      </head>
      <body data-revision="${revision}">
        <a class="skip" href="#main">Skip to content</a>
        <header>
          <nav aria-label="Main">
            <a href="/">Catalogs</a> <a href="/packages">Packages</a>
            <a href="/provides">Provides API</a>
          </nav>
          <span id="live" role="status" aria-live="polite"></span>
        </header>
        <main id="main">${body}</main>
      </body>
    </html> `.value;
}

function condition(c: ClusterCatalog, type: string): string {
  const cond = findCondition(c.status?.conditions, type);
  return cond ? `${cond.status} (${cond.reason})` : 'Unknown';
}

export function catalogsPage(catalogs: ClusterCatalog[]): SafeHtml {
  return html`<h1>Catalogs</h1>
    ${
      catalogs.length === 0
        ? html`<p>No catalogs found (create a ClusterCatalog).</p>`
        : html`<table class="catalogs">
            ${tableHead('Name', 'Serving', 'Progressing', 'Objects', 'Digest', 'Last unpacked')}
            <tbody>
              ${catalogs.map(
                (c) =>
                  html`<tr>
                    <td>
                      <a href="/packages?catalog=${seg(c.metadata.name)}">${c.metadata.name}</a>
                    </td>
                    <td>${condition(c, TYPE_SERVING)}</td>
                    <td>${condition(c, TYPE_PROGRESSING)}</td>
                    <td>${c.status?.objectCount ?? ''}</td>
                    <td class="digest">
                      ${c.status?.resolvedSource?.image?.ref?.split('@')[1] ?? ''}
                    </td>
                    <td>${c.status?.lastUnpacked ?? ''}</td>
                  </tr> `,
              )}
            </tbody>
          </table>`
    }`;
}

/** The filter fields of the packages page, as PackageFilter keys with their labels. */
export const FILTER_FIELDS: Array<[keyof PackageFilter, string]> = [
  ['search', 'Search'],
  ['installMode', 'Install mode'],
  ['kubeVersion', 'Kubernetes version'],
  ['openshiftVersion', 'OpenShift version'],
  ['arch', 'Architecture'],
  ['os', 'Operating system'],
  ['category', 'Category'],
  ['capability', 'Capability'],
  ['provider', 'Provider'],
];

/** The characters a search reads of a package's facts. */
function searched(f: PackageFacts): number {
  const len = (v: unknown) => (typeof v === 'string' ? v.length : 0);
  let n = len(f.name) + len(f.displayName) + len(f.description) + len(f.csvDescription);
  for (const k of f.keywords ?? []) n += len(k);
  return n;
}

/**
 * The packages page: the cards of `list` that pass the filter, and a note for each catalog left
 * out. Gives the event loop a turn every PAGE_SLICE characters searched or written.
 */
export async function packagesPage(
  list: PackageList,
  filter: PackageFilter,
  catalog: string | undefined,
): Promise<SafeHtml> {
  const turns = new Yielder(PAGE_SLICE);
  const cards: SafeHtml[] = [];
  for (const r of list.cards) {
    let work = 64 + (filter.search !== undefined ? searched(r.facts) : 0);
    if (matchesPackageFilter(r.facts, filter)) {
      const card = packageCard(r);
      cards.push(card);
      work += card.value.length;
    }
    await turns.charge(work);
  }
  const field = ([key, label]: [keyof PackageFilter, string]) => {
    const id = `f-${key}`;
    const v = filter[key] ?? '';
    const input =
      key === 'installMode'
        ? html`<select id="${id}" name="${key}">
            <option value="">any</option>
            ${INSTALL_MODES.map((m) => html`<option${m === v ? trusted(' selected') : ''}>${m}</option>`)}
          </select>`
        : html`<input
            id="${id}"
            name="${key}"
            value="${v}"
            ${key === 'search' ? trusted(' type="search"') : ''}
          />`;
    return html`<label for="${id}">${label}</label>${input}`;
  };
  return html`<h1>Packages${catalog !== undefined ? html` in ${catalog}` : ''}</h1>
    ${list.failed.map(
      (f) =>
        html`<p class="error catalog-failed" role="note" data-catalog="${f.catalog}">
          Catalog ${f.catalog} is left out: its packages could not be listed (${f.message}).
        </p>`,
    )}
    <form class="filters" method="get" action="/packages" role="search">
      ${catalog !== undefined ? html`<input type="hidden" name="catalog" value="${catalog}" />` : ''}
      ${FILTER_FIELDS.map(field)}
      <button type="submit">Filter</button>
      <a href="/packages${catalog !== undefined ? `?catalog=${seg(catalog)}` : ''}">Clear</a>
    </form>
    <p class="count"><span id="count">${cards.length}</span> of ${list.cards.length} packages</p>
    <ul class="packages">
      ${cards}
    </ul>`;
}

/** A package's card: every value from the catalog escaped, the card's texts already bounded. */
export function packageCard(r: PackageCard): SafeHtml {
  const href = packageHref(r.catalog, r.name);
  return html`<li
    class="package${r.deprecated !== undefined ? ' deprecated' : ''}"
    data-name="${r.name}"
  >
    ${r.hasIcon ? html`<img src="/icon/${seg(r.catalog)}/${seg(r.name)}?rev=${r.contentHash.slice(0, 16)}" alt="" width="48" height="48" loading="lazy" />` : html`<span class="noicon" aria-hidden="true"></span>`}
    <div>
      <h2><a href="${href}">${r.displayName ?? r.name}</a></h2>
      <p class="meta">
        <span class="name">${r.name}</span> ·
        ${r.catalog}${r.provider !== undefined ? html` · ${r.provider}` : ''}${r.headVersion !== undefined ? html` · <span class="version">${r.headVersion}</span> (${r.defaultChannel ?? ''})` : ''}${r.deprecated !== undefined ? html` · <strong class="dep" title="${r.deprecated}">deprecated</strong>` : ''}
      </p>
      <p class="desc">${r.excerpt}</p>
    </div>
  </li> `;
}

/** The OLM v1 ClusterExtension that installs the package from this catalog and channel. */
function installSnippet(pkg: string, channel: string | undefined, catalog: string): string {
  return dump(
    {
      apiVersion: 'olm.operatorframework.io/v1',
      kind: 'ClusterExtension',
      metadata: { name: pkg },
      spec: {
        namespace: pkg,
        serviceAccount: { name: `${pkg}-installer` },
        source: {
          sourceType: 'Catalog',
          catalog: {
            packageName: pkg,
            ...(channel !== undefined && { channels: [channel] }),
            selector: { matchLabels: { 'olm.operatorframework.io/metadata.name': catalog } },
          },
        },
      },
    },
    { noRefs: true, lineWidth: -1 },
  );
}

/** The facts list of a package page: what to know before installing. */
function factsList(d: PackageDetails): SafeHtml {
  const list = (xs: readonly string[]) => (xs.length > 0 ? xs.join(', ') : '—');
  const facts: Array<[string, SafeHtml | string]> = [
    ['Catalog', d.catalog],
    [
      'Provider',
      d.provider?.name !== undefined
        ? safeUrl(d.provider.url)
          ? html`<a href="${safeUrl(d.provider.url)}" rel="noopener noreferrer nofollow"
              >${d.provider.name}</a
            >`
          : d.provider.name
        : '—',
    ],
    ['Default channel', d.defaultChannel ?? '—'],
    [
      'Head',
      d.head ? `${d.head.name}${d.head.version !== undefined ? ` (${d.head.version})` : ''}` : '—',
    ],
    ['Install modes', list(d.installModes)],
    ['Min Kube version', d.minKubeVersion ?? '—'],
    ['Max OpenShift version', d.maxOpenShiftVersion ?? '—'],
    ['Infrastructure features', list(d.infrastructureFeatures)],
    ['Architectures', list(d.archs)],
    ['Operating systems', list(d.oses)],
    ['Capabilities', d.capabilities ?? '—'],
    ['Maturity', d.maturity ?? '—'],
    ['Categories', list(d.categories)],
    ['Keywords', list(d.keywords)],
    ['Provided APIs', list(d.providedAPIs)],
    [
      'Links',
      d.links.length === 0
        ? '—'
        : html`${d.links.map((l) => {
            const u = safeUrl(l.url);
            return html`${u ? html`<a href="${u}" rel="noopener noreferrer nofollow">${l.name ?? u}</a>` : (l.name ?? l.url ?? '')} `;
          })}`,
    ],
    [
      'Maintainers',
      list(d.maintainers.map((m) => [m.name, m.email && `<${m.email}>`].filter(Boolean).join(' '))),
    ],
  ];
  return html`<dl class="facts">
    ${facts.map(
      ([k, val]) =>
        html`<dt>${k}</dt>
          <dd>${val}</dd>`,
    )}
  </dl>`;
}

/** The channels table, the upgrades form (and its answer) and each channel's graph. */
function channelsSection(
  v: PackageView,
  d: PackageDetails,
  versions: Map<string, string>,
  upgrades: UpgradesQuery | undefined,
): SafeHtml {
  return html`<section aria-labelledby="h-channels">
    <h2 id="h-channels">Channels</h2>
    <table class="channels">
      ${tableHead('Channel', 'Head', 'Head version', 'Entries', 'Deprecated')}
      <tbody>
        ${v.channels.map((c) => {
          const h = channelHead(c);
          const cdep = deprecationMessage(v.deprecations, SCHEMA_CHANNEL, c.name);
          return html`<tr data-channel="${c.name}">
            <td>
              <a href="#ch-${seg(c.name)}">${c.name}</a
              >${c.name === d.defaultChannel ? ' (default)' : ''}
            </td>
            <td class="head">${h.head ?? `(${h.error ?? 'none'})`}</td>
            <td>${h.head !== undefined ? (versions.get(h.head) ?? '') : ''}</td>
            <td>${c.entries.length}</td>
            <td>${cdep ?? ''}</td>
          </tr> `;
        })}
      </tbody>
    </table>
    <form class="upgrades" method="get" action="${packageHref(d.catalog, d.name)}#upgrades">
      <label for="from">Upgrades from version or bundle</label
      ><input id="from" name="from" required /> <label for="channel">in channel</label
      ><select id="channel" name="channel">
        ${v.channels.map((c) => html`<option${c.name === d.defaultChannel ? trusted(' selected') : ''}>${c.name}</option>`)}
      </select>
      <button type="submit">Show upgrades</button>
    </form>
    ${upgrades !== undefined ? upgradesSection(v, upgrades) : ''}
    ${v.channels.map((c) => {
      const heading = html`<h3 id="ch-${seg(c.name)}">Channel ${c.name}</h3>`;
      const g = boundedGraph(c, versions, v.deprecations);
      if (typeof g === 'string')
        return html`${heading}
          <p class="legend graph-not-drawn">Graph not drawn: ${g}.</p> `;
      return html`${heading}
        <p class="legend">
          Solid: replaces · dashed: skips · dotted: skipRange · ★ head · ⚠ deprecated
        </p>
        <div class="graph-wrap" tabindex="0">
          ${graphSvg(g, `Upgrade graph of ${d.name} channel ${c.name}`)}
        </div> `;
    })}
  </section>`;
}

/**
 * The channel's upgrade graph, or why it is not drawn: its edges grow as the square of its entries
 * (each skipRange is checked against every entry), so a hostile channel could hold the page
 * for minutes; the channels table still shows its head and entries.
 */
function boundedGraph(
  c: ChannelBlob,
  versions: Map<string, string>,
  deprecations: DeprecationsBlob | undefined,
): UpgradeGraph | string {
  const n = c.entries.length;
  const fmt = (x: number) => x.toLocaleString('en-US');
  if (n > MAX_GRAPH_ENTRIES)
    return `the channel has ${fmt(n)} entries (graphs of up to ${fmt(MAX_GRAPH_ENTRIES)} are drawn)`;
  const checks = c.entries.filter((e) => e.skipRange).length * n;
  if (checks > MAX_GRAPH_RANGE_CHECKS)
    return `its skipRanges need ${fmt(checks)} version checks (graphs of up to ${fmt(MAX_GRAPH_RANGE_CHECKS)} are drawn)`;
  const g = upgradeGraph(c, versions, deprecations);
  if (g.edges.length > MAX_GRAPH_EDGES)
    return `it has ${fmt(g.edges.length)} upgrade edges (graphs of up to ${fmt(MAX_GRAPH_EDGES)} are drawn)`;
  return g;
}

/** The upgrades form's query: a version or bundle, and a channel (default: the default one). */
export interface UpgradesQuery {
  from: string;
  channel?: string;
}

/** The upgrades form's answer: the one-step upgrades from a version or bundle, and the path. */
function upgradesSection(view: PackageView, q: UpgradesQuery): SafeHtml {
  const channelName = q.channel ?? view.pkg.defaultChannel;
  const ch = view.channels.find((c) => c.name === channelName);
  if (!ch) return html`<p class="error" id="upgrades">No channel ${q.channel ?? ''}.</p>`;
  try {
    const installed = resolveInstalled(view.bundles, q.from, ch);
    const u = upgradesFrom(ch, installed.name, versionMap(view.bundles), view.deprecations);
    return html`<section id="upgrades" aria-labelledby="h-upgrades">
      <h3 id="h-upgrades">
        Upgrades from ${u.from.name}${u.from.version !== undefined ? ` (${u.from.version})` : ''} in
        ${ch.name}
      </h3>
      ${
        u.items.length === 0
          ? html`<p>No upgrade: this is the newest reachable bundle.</p>`
          : html`<table>
              ${tableHead('Bundle', 'Version', 'Via', 'Head')}
              <tbody>
                ${u.items.map(
                  (i) =>
                    html`<tr>
                      <td>${i.name}${i.deprecated !== undefined ? ' (deprecated)' : ''}</td>
                      <td>${i.version ?? ''}</td>
                      <td>
                        ${i.via.join(', ')}${i.skipRange !== undefined ? ` ${i.skipRange}` : ''}
                      </td>
                      <td>${i.head ? 'yes' : ''}</td>
                    </tr>`,
                )}
              </tbody>
            </table>`
      }
      <p>
        Path to the head:
        ${u.path.length > 0 ? u.path.map((s) => s.version ?? s.name).join(' → ') : 'none'}
      </p>
    </section>`;
  } catch (err) {
    if (err instanceof UnknownBundleError)
      return html`<p class="error" id="upgrades">${err.message}</p>`;
    throw err;
  }
}

/** The bundles table, newest first. */
function bundlesSection(v: PackageView): SafeHtml {
  return html`<section aria-labelledby="h-bundles">
    <h2 id="h-bundles">Bundles</h2>
    <table class="bundles">
      ${tableHead('Bundle', 'Version', 'Channels', 'Provides', 'Requires', 'Image')}
      <tbody>
        ${sortBundlesByVersion(v.bundles).map((b) => {
          const bdep = deprecationMessage(v.deprecations, SCHEMA_BUNDLE, b.name);
          return html`<tr${bdep !== undefined ? trusted(' class="deprecated"') : ''}><td>${b.name}${bdep !== undefined ? html` <strong class="dep" title="${bdep}">deprecated</strong>` : ''}</td><td>${bundleVersion(b) ?? ''}</td><td>${channelsOf(b.name, v.channels).join(', ')}</td><td>${bundleGvks(b).map(formatGvk).join(', ')}</td><td>${requiredGvks(b).join(', ')}</td><td class="image">${b.image ?? ''}</td></tr>\n`;
        })}
      </tbody>
    </table>
  </section>`;
}

/**
 * A package page's body, with the upgrades form's answer when asked. The console renders it in a
 * worker (render-thread.ts): it may take long on a large package.
 */
export function packagePage(v: PackageView, upgrades?: UpgradesQuery): SafeHtml {
  const d = packageDetails(v.catalog, v.pkg, v.channels, v.bundles, v.deprecations);
  const versions = versionMap(v.bundles);
  const dep = d.deprecated;
  const channel = typeof d.defaultChannel === 'string' ? d.defaultChannel : undefined;
  return html`<h1>
      ${d.displayName ?? d.name}${d.displayName !== undefined ? html` <small>${d.name}</small>` : ''}
    </h1>
    ${dep?.package !== undefined ? html`<p class="warning" role="note">Deprecated: ${dep.package}</p>` : ''}
    ${factsList(d)}
    <section aria-labelledby="h-install">
      <h2 id="h-install">Install</h2>
      <pre id="snippet" tabindex="0">${installSnippet(d.name, channel, d.catalog)}</pre>
      <button type="button" class="copy" data-copy="snippet">Copy</button>
    </section>
    <section aria-labelledby="h-desc">
      <h2 id="h-desc">Description</h2>
      <div class="markdown">${trusted(renderMarkdown(d.description ?? ''))}</div>
    </section>
    ${channelsSection(v, d, versions, upgrades)} ${bundlesSection(v)}`;
}

function requiredGvks(b: Parameters<typeof bundleGvks>[0]): string[] {
  return bundleProperties(b, 'olm.gvk.required').flatMap((v) => {
    if (typeof v !== 'object' || v === null) return [];
    const { group, version, kind } = v as Record<string, unknown>;
    return typeof version === 'string' && typeof kind === 'string'
      ? [formatGvk({ group: typeof group === 'string' ? group : '', version, kind })]
      : [];
  });
}

export function providesPage(
  gvk: string,
  providers: Provider[] | undefined,
  error?: string,
): SafeHtml {
  const sorted = sortProviders(providers ?? []);
  return html`<h1>Which package provides an API</h1>
    <form class="provides" method="get" action="/provides">
      <label for="gvk">API group/version/kind</label
      ><input
        id="gvk"
        name="gvk"
        value="${gvk}"
        placeholder="example.com/v1alpha1/ExampleBackup"
        required
      />
      <button type="submit">Find</button>
    </form>
    ${error !== undefined ? html`<p class="error" role="alert">${error}</p>` : ''}
    ${
      providers === undefined
        ? ''
        : sorted.length === 0
          ? html`<p id="providers">No bundle provides ${gvk}.</p>`
          : html`<table id="providers">
              ${tableHead('Package', 'Catalog', 'Bundle', 'Version')}
              <tbody>
                ${sorted.map(
                  (p) =>
                    html`<tr>
                      <td>
                        <a href="${packageHref(p.catalog, p.bundle.package)}"
                          >${p.bundle.package}</a
                        >
                      </td>
                      <td>${p.catalog}</td>
                      <td>${p.bundle.name}</td>
                      <td>${bundleVersion(p.bundle) ?? ''}</td>
                    </tr>`,
                )}
              </tbody>
            </table>`
    }`;
}

export function errorPage(status: number, message: string): SafeHtml {
  return html`<h1>${status === 404 ? 'Not found' : 'Error'}</h1>
    <p class="error">${message}</p>`;
}

// The pages, rendered on the server as plain HTML (they work without JavaScript); /static/ui.js
// adds live updates and the copy button. Every catalog string goes through `html` (escaped).
import { dump } from 'js-yaml';
import type { ClusterCatalog } from '../../api/v1/index.js';
import { TYPE_PROGRESSING, TYPE_SERVING, findCondition } from '../../api/v1/index.js';
import type { PackageFilter, Provider } from '../../client/index.js';
import {
  INSTALL_MODES,
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
  sortBundlesByVersion,
  sortProviders,
  upgradeGraph,
  versionMap,
} from '../../client/index.js';
import type { PackageDetails, PackageView } from '../../client/index.js';
import type { PackageCard } from './data.js';
import type { SafeHtml } from './html.js';
import { html, packageHref, safeUrl, seg, tableHead, trusted } from './html.js';
import { graphSvg } from './graph-svg.js';
import { cardExcerpt, renderMarkdown } from './markdown.js';

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

export function packagesPage(
  rows: PackageCard[],
  filter: PackageFilter,
  catalog: string | undefined,
): SafeHtml {
  const shown = rows.filter(
    (r) =>
      (catalog === undefined || r.catalog === catalog) && matchesPackageFilter(r.facts, filter),
  );
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
    <form class="filters" method="get" action="/packages" role="search">
      ${catalog !== undefined ? html`<input type="hidden" name="catalog" value="${catalog}" />` : ''}
      ${FILTER_FIELDS.map(field)}
      <button type="submit">Filter</button>
      <a href="/packages${catalog !== undefined ? `?catalog=${seg(catalog)}` : ''}">Clear</a>
    </form>
    <p class="count">
      <span id="count">${shown.length}</span> of
      ${rows.filter((r) => catalog === undefined || r.catalog === catalog).length} packages
    </p>
    <ul class="packages">
      ${shown.map((r) => {
        const f = r.facts;
        const href = packageHref(r.catalog, r.pkg.name);
        return html`<li
          class="package${r.deprecated !== undefined ? ' deprecated' : ''}"
          data-name="${r.pkg.name}"
        >
          ${r.hasIcon ? html`<img src="/icon/${seg(r.catalog)}/${seg(r.pkg.name)}?rev=${r.contentHash.slice(0, 16)}" alt="" width="48" height="48" loading="lazy" />` : html`<span class="noicon" aria-hidden="true"></span>`}
          <div>
            <h2><a href="${href}">${f.displayName ?? r.pkg.name}</a></h2>
            <p class="meta">
              <span class="name">${r.pkg.name}</span> ·
              ${r.catalog}${f.provider !== undefined ? html` · ${f.provider}` : ''}${f.headVersion !== undefined ? html` · <span class="version">${f.headVersion}</span> (${f.defaultChannel ?? ''})` : ''}${r.deprecated !== undefined ? html` · <strong class="dep" title="${r.deprecated}">deprecated</strong>` : ''}
            </p>
            <p class="desc">${cardExcerpt(f.csvDescription ?? r.pkg.description)}</p>
          </div>
        </li> `;
      })}
    </ul>`;
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
  upgradesFrom: SafeHtml | undefined,
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
    ${upgradesFrom ?? ''}
    ${v.channels.map((c) => {
      const g = upgradeGraph(c, versions, v.deprecations);
      return html`<h3 id="ch-${seg(c.name)}">Channel ${c.name}</h3>
        <p class="legend">
          Solid: replaces · dashed: skips · dotted: skipRange · ★ head · ⚠ deprecated
        </p>
        <div class="graph-wrap" tabindex="0">
          ${graphSvg(g, `Upgrade graph of ${d.name} channel ${c.name}`)}
        </div> `;
    })}
  </section>`;
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

export function packagePage(v: PackageView, upgradesFrom?: SafeHtml): SafeHtml {
  const d = packageDetails(v.catalog, v.pkg, v.channels, v.bundles, v.deprecations);
  const versions = versionMap(v.bundles);
  const dep = d.deprecated;
  return html`<h1>
      ${d.displayName ?? d.name}${d.displayName !== undefined ? html` <small>${d.name}</small>` : ''}
    </h1>
    ${dep?.package !== undefined ? html`<p class="warning" role="note">Deprecated: ${dep.package}</p>` : ''}
    ${factsList(d)}
    <section aria-labelledby="h-install">
      <h2 id="h-install">Install</h2>
      <pre id="snippet" tabindex="0">${installSnippet(d.name, d.defaultChannel, d.catalog)}</pre>
      <button type="button" class="copy" data-copy="snippet">Copy</button>
    </section>
    <section aria-labelledby="h-desc">
      <h2 id="h-desc">Description</h2>
      <div class="markdown">${trusted(renderMarkdown(d.description ?? ''))}</div>
    </section>
    ${channelsSection(v, d, versions, upgradesFrom)} ${bundlesSection(v)}`;
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

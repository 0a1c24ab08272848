// The pages, rendered on the server as plain HTML (they work without JavaScript); /static/ui.js
// adds live updates and the copy button. Every catalog string goes through `html` (escaped).
// The packages page gives the event loop a turn every PAGE_SLICE characters of work; a package
// page is rendered in a worker (render-thread.ts), its upgrade graphs drawn within bounds.
import type { ClusterCatalog } from '../../api/v1/index.js';
import { TYPE_PROGRESSING, TYPE_SERVING, findCondition } from '../../api/v1/index.js';
import type { PackageFacts, PackageFilter, Provider } from '../../client/index.js';
import {
  INSTALL_MODES,
  bundleVersion,
  matchesPackageFilter,
  sortProviders,
} from '../../client/index.js';
import { Yielder } from '../../util/yielder.js';
import type { CatalogFailure, PackageCard, PackageList } from './data.js';
import type { SafeHtml } from './html.js';
import { html, packageHref, seg, tableHead, trusted } from './html.js';

export {
  MAX_GRAPH_EDGES,
  MAX_GRAPH_ENTRIES,
  MAX_GRAPH_RANGE_CHECKS,
  packagePage,
} from './package-page.js';

/** Characters of work (text searched, markup made) on the packages page between two turns. */
export const PAGE_SLICE = 256 * 1024;

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

export function providesPage(
  gvk: string,
  providers: Provider[] | undefined,
  error?: string,
  failed: CatalogFailure[] = [],
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
    ${failed.map(
      (f) =>
        html`<p class="error catalog-failed" role="note" data-catalog="${f.catalog}">
          Catalog ${f.catalog} is left out: its bundles could not be read (${f.message}).
        </p>`,
    )}
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

// The package page (details, install snippet, channels with their heads and bounded upgrade
// graphs, the upgrades form, bundles), rendered in a worker (render-thread.ts). Every catalog
// string goes through `html` (escaped).
import { dump } from 'js-yaml';
import type { ChannelBlob, DeprecationsBlob, UpgradeGraph } from '../../client/index.js';
import {
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
  packageDetails,
  resolveInstalled,
  sortBundlesByVersion,
  upgradeGraph,
  upgradesFrom,
  versionMap,
} from '../../client/index.js';
import type { PackageDetails, PackageView } from '../../client/index.js';
import type { SafeHtml } from './html.js';
import { html, packageHref, safeUrl, seg, tableHead, trusted } from './html.js';
import { graphSvg } from './graph-svg.js';
import { renderMarkdown } from './markdown.js';

/** Entries of a channel whose upgrade graph is drawn. */
export const MAX_GRAPH_ENTRIES = 1000;
/** skipRange checks (entries with a skipRange × entries) of a channel whose graph is drawn. */
export const MAX_GRAPH_RANGE_CHECKS = 250_000;
/** Upgrade edges of a graph that is drawn. */
export const MAX_GRAPH_EDGES = 20_000;

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

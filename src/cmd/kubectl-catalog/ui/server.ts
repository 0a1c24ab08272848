// The HTTP server of `kubectl catalog ui`: loopback by default, every read through the client
// library with the caller's kubeconfig. Routes: / (catalogs), /packages, /package/C/P,
// /icon/C/P, /api/revision (ETag, for live updates), /static/ui.css and ui.js.
import { createHash } from 'node:crypto';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { createServer } from 'node:http';
import { setTimeout as delay } from 'node:timers/promises';
import type { AddressInfo } from 'node:net';
import type { ClusterCatalog } from '../../../api/v1/index.js';
import { CLUSTER_CATALOG_PLURAL, GROUP, VERSION } from '../../../api/v1/index.js';
import type { PackageFilter } from '../../../client/index.js';
import { Resource } from '../../../kube/index.js';
import {
  InconsistentListError,
  UnknownBundleError,
  looseVersion,
  parseGvk,
  resolveInstalled,
  upgradesFrom,
  versionMap,
} from '../../../client/index.js';
import { CSS, SCRIPT } from './assets.js';
import type { UiData } from './data.js';
import { PackageNotFound } from './data.js';
import type { SafeHtml } from './html.js';
import { html, seg } from './html.js';
import {
  FILTER_FIELDS,
  catalogsPage,
  errorPage,
  layout,
  packagePage,
  packagesPage,
  providesPage,
} from './pages.js';

export const CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

export interface UiServerOptions {
  data: UiData;
  host: string;
  port: number;
  /** How often the server re-reads the ClusterCatalogs besides its watch (default 30 s). */
  pollMs?: number;
}

export interface UiServer {
  url: string;
  close(): Promise<void>;
}

const etagOf = (body: string | Buffer) =>
  `"${createHash('sha256').update(body).digest('hex').slice(0, 32)}"`;

function send(
  res: ServerResponse,
  status: number,
  type: string,
  body: string | Buffer,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, {
    'Content-Type': type,
    'Content-Security-Policy': CSP,
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
    'Cache-Control': 'no-cache',
    ...headers,
  });
  res.end(body);
}

export async function startUiServer(opts: UiServerOptions): Promise<UiServer> {
  const { data } = opts;
  await data.refreshCatalogs();
  const abort = new AbortController();
  // Live updates: a watch of the ClusterCatalogs (re-opened when the server ends it) re-reads
  // them on every change; a slow poll covers a watch that cannot be opened (RBAC, proxies).
  let refreshing: Promise<void> | undefined;
  let again = false;
  const refreshNow = () => {
    if (refreshing) {
      again = true;
      return;
    }
    refreshing = data
      .refreshCatalogs(abort.signal)
      .then(() => undefined)
      .catch(() => undefined)
      .finally(() => {
        refreshing = undefined;
        if (again && !abort.signal.aborted) {
          again = false;
          refreshNow();
        }
      });
  };
  const catalogs = new Resource<ClusterCatalog>(data.client.kube, {
    group: GROUP,
    version: VERSION,
    plural: CLUSTER_CATALOG_PLURAL,
  });
  const watching = (async () => {
    while (!abort.signal.aborted) {
      try {
        await catalogs.watch(
          { resourceVersion: '', allowWatchBookmarks: true, timeoutSeconds: 300 },
          (type) => {
            if (type !== 'BOOKMARK') refreshNow();
          },
          abort.signal,
        );
      } catch {
        // re-opened below
      }
      await delay(1000, undefined, { signal: abort.signal }).catch(() => undefined);
    }
  })();
  let timer: NodeJS.Timeout | undefined;
  const poll = () => {
    timer = setTimeout(() => {
      refreshNow();
      if (!abort.signal.aborted) poll();
    }, opts.pollMs ?? 30_000);
  };
  poll();

  const page = (res: ServerResponse, title: string, body: SafeHtml, status = 200) =>
    send(res, status, 'text/html; charset=utf-8', layout(title, body, data.revision));

  // Set once listening: the Host values this server answers to.
  let hosts = new Set<string>();
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    // A page of another site could reach this loopback server by DNS rebinding and read the
    // catalogs with the user's credentials: answer only requests addressed to us by name.
    if (!hosts.has((req.headers.host ?? '').toLowerCase()))
      return send(res, 421, 'text/plain', 'misdirected request: unknown Host');
    const url = new URL(req.url ?? '/', 'http://ui.invalid');
    const parts = url.pathname.split('/').slice(1).map(decodeURIComponent);
    if (req.method !== 'GET' && req.method !== 'HEAD')
      return send(res, 405, 'text/plain', 'method not allowed', { Allow: 'GET, HEAD' });
    if (url.pathname === '/static/ui.css')
      return send(res, 200, 'text/css; charset=utf-8', CSS, { 'Cache-Control': 'max-age=300' });
    if (url.pathname === '/static/ui.js')
      return send(res, 200, 'text/javascript; charset=utf-8', SCRIPT, {
        'Cache-Control': 'max-age=300',
      });
    if (url.pathname === '/api/revision') {
      const body = JSON.stringify({ revision: data.revision });
      const etag = etagOf(body);
      if (req.headers['if-none-match'] === etag)
        return send(res, 304, 'application/json', '', { ETag: etag });
      return send(res, 200, 'application/json', body, { ETag: etag });
    }
    if (url.pathname === '/') return page(res, 'Catalogs', catalogsPage(data.catalogs));
    if (url.pathname === '/packages') {
      const filter: PackageFilter = {};
      for (const [key] of FILTER_FIELDS) {
        const v = url.searchParams.get(key)?.trim();
        if (v) (filter as Record<string, string>)[key] = v;
      }
      for (const k of ['kubeVersion', 'openshiftVersion'] as const)
        if (filter[k] !== undefined && !looseVersion(filter[k]))
          return page(
            res,
            'Packages',
            errorPage(400, `${filter[k]}: not a version (e.g. 1.30)`),
            400,
          );
      const catalog = url.searchParams.get('catalog') || undefined;
      return page(res, 'Packages', packagesPage(await data.packages(), filter, catalog));
    }
    if (url.pathname === '/provides') {
      const text = url.searchParams.get('gvk')?.trim() ?? '';
      if (text === '') return page(res, 'Provides API', providesPage('', undefined));
      const gvk = parseGvk(text);
      if (!gvk)
        return page(
          res,
          'Provides API',
          providesPage(
            text,
            undefined,
            `${text} is not GROUP/VERSION/KIND (VERSION/KIND for the core group)`,
          ),
          400,
        );
      return page(res, 'Provides API', providesPage(text, await data.providers(gvk)));
    }
    if (parts[0] === 'icon' && parts.length === 3) {
      const icon = await data.icon(parts[1]!, parts[2]!);
      if (!icon) return send(res, 404, 'text/plain', 'no icon');
      const etag = etagOf(icon.body);
      const headers = {
        ETag: etag,
        'Cache-Control': 'public, max-age=86400',
        'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'; sandbox",
      };
      if (req.headers['if-none-match'] === etag) return send(res, 304, icon.type, '', headers);
      return send(res, 200, icon.type, icon.body, headers);
    }
    if (parts[0] === 'package' && parts.length === 3) {
      const [catalog, pkg] = [parts[1]!, parts[2]!];
      const view = await data.packageView(catalog, pkg);
      if (!view)
        return page(
          res,
          pkg,
          errorPage(404, `catalog ${catalog} is not Serving (or not shown)`),
          404,
        );
      let upgrades: SafeHtml | undefined;
      const from = url.searchParams.get('from')?.trim();
      if (from)
        upgrades = upgradesSection(view, from, url.searchParams.get('channel') ?? undefined);
      return page(res, pkg, packagePage(view, upgrades));
    }
    return page(res, 'Not found', errorPage(404, `no page ${url.pathname}`), 404);
  };

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      const known = err instanceof PackageNotFound || err instanceof InconsistentListError;
      if (res.headersSent) return res.destroy();
      page(
        res,
        'Error',
        errorPage(
          err instanceof PackageNotFound ? 404 : 500,
          known ? err.message : String((err as Error)?.message ?? err),
        ),
        err instanceof PackageNotFound ? 404 : 500,
      );
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => resolve());
  });
  const addr = server.address() as AddressInfo;
  const host = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
  hosts = allowedHosts(host, addr.port);
  return {
    url: `http://${host}:${addr.port}/`,
    close: async () => {
      abort.abort();
      clearTimeout(timer);
      await watching;
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

function upgradesSection(
  view: NonNullable<Awaited<ReturnType<UiData['packageView']>>>,
  from: string,
  channelName: string | undefined,
): SafeHtml {
  const ch = view.channels.find((c) => c.name === (channelName ?? view.pkg.defaultChannel));
  if (!ch) return html`<p class="error" id="upgrades">No channel ${channelName ?? ''}.</p>`;
  try {
    const installed = resolveInstalled(view.bundles, from, ch);
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
              <thead>
                <tr>
                  <th scope="col">Bundle</th>
                  <th scope="col">Version</th>
                  <th scope="col">Via</th>
                  <th scope="col">Head</th>
                </tr>
              </thead>
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

export const packageHref = (catalog: string, pkg: string) => `/package/${seg(catalog)}/${seg(pkg)}`;

/** The Host header values of requests for this server: its address, and loopback names. */
export function allowedHosts(host: string, port: number): Set<string> {
  const names = [host, 'localhost', '127.0.0.1', '[::1]'];
  return new Set(names.map((n) => `${n.toLowerCase()}:${port}`));
}

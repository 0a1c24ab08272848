// The console's routes: / (catalogs), /packages, /package/C/P, /provides, /icon/C/P,
// /api/revision (ETag, for live updates), /static/ui.css and ui.js. Every response carries the
// CSP and the headers of send(); every page is laid out with the catalogs' revision. A URL that
// cannot be decoded answers 400; an error answers a page with its message, never a stack.
import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { PackageFilter } from '../../client/index.js';
import {
  InconsistentListError,
  PackageNotFoundError,
  looseVersion,
  parseGvk,
} from '../../client/index.js';
import { CSS, SCRIPT } from './assets.js';
import type { UiData } from './data.js';
import { failureMessage } from './data.js';
import type { SafeHtml } from './html.js';
import { trusted } from './html.js';
import {
  FILTER_FIELDS,
  catalogsPage,
  errorPage,
  layout,
  packagesPage,
  providesPage,
} from './pages.js';

const CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

const etagOf = (body: string | Buffer) =>
  `"${createHash('sha256').update(body).digest('hex').slice(0, 32)}"`;

export function send(
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
    // Only this origin may load a response (another site's page cannot probe for icons).
    'Cross-Origin-Resource-Policy': 'same-origin',
    'Cache-Control': 'no-cache',
    ...headers,
  });
  res.end(body);
}

/** What a route answers with: the data, the request's URL and the response. */
interface Request {
  data: UiData;
  req: IncomingMessage;
  res: ServerResponse;
  url: URL;
}

function page(r: Request, title: string, body: SafeHtml, status = 200): void {
  send(r.res, status, 'text/html; charset=utf-8', layout(title, body, r.data.revision));
}

/** 200 with an ETag, or 304 when the browser has it. */
function sendTagged(r: Request, type: string, body: string | Buffer, headers = {}): void {
  const etag = etagOf(body);
  const all = { ...headers, ETag: etag };
  if (r.req.headers['if-none-match'] === etag) send(r.res, 304, type, '', all);
  else send(r.res, 200, type, body, all);
}

function revisionRoute(r: Request): void {
  sendTagged(r, 'application/json', JSON.stringify({ revision: r.data.revision }));
}

async function packagesRoute(r: Request): Promise<void> {
  const filter: PackageFilter = {};
  for (const [key] of FILTER_FIELDS) {
    const v = r.url.searchParams.get(key)?.trim();
    if (v) (filter as Record<string, string>)[key] = v;
  }
  for (const k of ['kubeVersion', 'openshiftVersion'] as const)
    if (filter[k] !== undefined && !looseVersion(filter[k]))
      return page(r, 'Packages', errorPage(400, `${filter[k]}: not a version (e.g. 1.30)`), 400);
  const catalog = r.url.searchParams.get('catalog') || undefined;
  page(r, 'Packages', await packagesPage(await r.data.packages(catalog), filter, catalog));
}

async function providesRoute(r: Request): Promise<void> {
  const text = r.url.searchParams.get('gvk')?.trim() ?? '';
  if (text === '') return page(r, 'Provides API', providesPage('', undefined));
  const gvk = parseGvk(text);
  if (!gvk) {
    const why = `${text} is not GROUP/VERSION/KIND (VERSION/KIND for the core group)`;
    return page(r, 'Provides API', providesPage(text, undefined, why), 400);
  }
  const { providers, failed } = await r.data.providers(gvk);
  page(r, 'Provides API', providesPage(text, providers, undefined, failed));
}

async function iconRoute(r: Request, catalog: string, pkg: string): Promise<void> {
  const icon = await r.data.icon(catalog, pkg);
  if (!icon) return send(r.res, 404, 'text/plain', 'no icon');
  sendTagged(r, icon.type, icon.body, {
    'Cache-Control': 'public, max-age=86400',
    'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'; sandbox",
  });
}

async function packageRoute(r: Request, catalog: string, pkg: string): Promise<void> {
  const from = r.url.searchParams.get('from')?.trim();
  const channel = r.url.searchParams.get('channel') ?? undefined;
  const upgrades = from ? { from, ...(channel !== undefined && { channel }) } : undefined;
  const body = await r.data.packagePage(catalog, pkg, upgrades);
  if (body === undefined)
    return page(r, pkg, errorPage(404, `catalog ${catalog} is not Serving (or not shown)`), 404);
  page(r, pkg, trusted(body));
}

/** The request's URL, its path's segments decoded; undefined when it cannot be decoded. */
function parseTarget(target: string): { url: URL; parts: string[] } | undefined {
  try {
    const url = new URL(target, 'http://ui.invalid');
    return { url, parts: url.pathname.split('/').slice(1).map(decodeURIComponent) };
  } catch {
    return undefined; // a malformed percent-escape (URIError) or an unparsable target
  }
}

/** Answers a GET or HEAD addressed to this server (the caller checked its Host). */
export async function route(data: UiData, req: IncomingMessage, res: ServerResponse) {
  if (req.method !== 'GET' && req.method !== 'HEAD')
    return send(res, 405, 'text/plain', 'method not allowed', { Allow: 'GET, HEAD' });
  const target = parseTarget(req.url ?? '/');
  if (!target) return send(res, 400, 'text/plain', 'bad request: the URL cannot be decoded\n');
  const { url, parts } = target;
  const r: Request = { data, req, res, url };
  const path = url.pathname;
  const cached = { 'Cache-Control': 'max-age=300' };
  if (path === '/static/ui.css') return send(res, 200, 'text/css; charset=utf-8', CSS, cached);
  if (path === '/static/ui.js')
    return send(res, 200, 'text/javascript; charset=utf-8', SCRIPT, cached);
  if (path === '/api/revision') return revisionRoute(r);
  if (path === '/') return page(r, 'Catalogs', catalogsPage(data.catalogs));
  if (path === '/packages') return packagesRoute(r);
  if (path === '/provides') return providesRoute(r);
  if (parts[0] === 'icon' && parts.length === 3) return iconRoute(r, parts[1]!, parts[2]!);
  if (parts[0] === 'package' && parts.length === 3) return packageRoute(r, parts[1]!, parts[2]!);
  return page(r, 'Not found', errorPage(404, `no page ${path}`), 404);
}

/**
 * A route's failure as an error page (404 for an unknown package) with the error's message only,
 * unless already answering.
 */
export function failed(data: UiData, res: ServerResponse, err: unknown): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const notFound = err instanceof PackageNotFoundError;
  const status = notFound ? 404 : 500;
  const message =
    notFound || err instanceof InconsistentListError ? err.message : failureMessage(err);
  try {
    send(
      res,
      status,
      'text/html; charset=utf-8',
      layout('Error', errorPage(status, message), data.revision),
    );
  } catch {
    res.destroy();
  }
}

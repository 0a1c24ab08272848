// The served API's front (SPEC §2.3, docs/served-security.md): the HTTPS listener the
// kube-apiserver's aggregation layer proxies to. Each request is, in order:
//   /healthz, /livez, /readyz   answered "ok" without a user (the kubelet's probes);
//   authenticated               by requestheader: a verified front-proxy client certificate, then
//                               the user its headers name (requestheader.ts); else 401;
//   parsed                      into a RequestInfo (request-info.ts);
//   authorized                  by a SubjectAccessReview, cached briefly (DelegatedAccess); denied:
//                               403 worded as the apiserver words it; a review that cannot be made:
//                               503 or 500; never allowed;
//   answered                    by the ServedApi, the user headers removed; a retryable 503 until
//                               this replica has listed its ClusterCatalogs (`ready`).
// The serving certificate is the content server's (replaced as it is reloaded); the TLS handshake
// asks for a client certificate of the front-proxy CA but lets any client finish it, so that a
// client without one gets a 401 Status rather than a reset.
import type { IncomingMessage, ServerResponse } from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import type { TLSSocket } from 'node:tls';
import type {
  AccessRequest,
  AuthorizationDecision,
  ReviewedUser,
} from '../../controllers/runtime/delegated-access.js';
import type { ServingPair } from '../../server/index.js';
import { secureContextOptions } from '../../server/index.js';
import type { RequestInfo, ServedApi, UserInfo } from '../ports.js';
import { requestInfo } from './request-info.js';
import type { RequestHeaderAuthenticator, RequestHeaderConfig } from './requestheader.js';
import { peerChain } from './requestheader.js';
import {
  authorizationFailed,
  forbidden,
  internalError,
  starting,
  unauthorized,
  writeStatus,
} from './status.js';

/** Paths answered without a user: the probes (as metrics-server's always-allowed paths). */
const HEALTH_PATHS = ['/healthz', '/livez', '/readyz'];
/** On close, how long open watches get to end their responses before connections are cut. */
const WATCH_END_BOUND_MS = 2_000;

export interface FrontLog {
  warn(obj: object, msg: string): void;
  debug(obj: object, msg: string): void;
}

export interface Authorizer {
  authorize(user: ReviewedUser, request: AccessRequest): Promise<AuthorizationDecision>;
}

export interface ApiFrontOptions {
  listen: { host: string; port: number };
  tls: ServingPair;
  authenticator: RequestHeaderAuthenticator;
  authorizer: Authorizer;
  api: ServedApi;
  /**
   * Whether this replica knows its catalogs yet (the ClusterCatalog informer synced): until then
   * /readyz is 503 and every other request a retryable 503, never an answer from no catalogs.
   */
  ready?: () => boolean;
  /** The time certificates are checked at (default: now). */
  now?: () => Date;
  log?: FrontLog;
}

export interface ApiFront {
  /** https://host:port of the listener. */
  url: string;
  port: number;
  /** A new serving certificate for new connections (the content server's, reloaded). */
  setCertificate(pair: ServingPair): void;
  /**
   * New requestheader settings (the ConfigMap changed); undefined: none (every request 401).
   * Throws a RequestHeaderConfigError for a CA that cannot be read, keeping the previous ones.
   */
  setRequestHeaderConfig(config: RequestHeaderConfig | undefined): void;
  close(): Promise<void>;
}

const isHealthPath = (path: string): boolean =>
  HEALTH_PATHS.some((p) => path === p || path.startsWith(`${p}/`));

/** The SubjectAccessReview's attributes of a request. */
function accessRequestOf(info: RequestInfo): AccessRequest {
  if (!info.isResourceRequest) return { path: info.path, verb: info.verb };
  return {
    verb: info.verb,
    group: info.apiGroup,
    version: info.apiVersion,
    resource: info.resource,
    ...(info.subresource && { subresource: info.subresource }),
    ...(info.name && { name: info.name }),
  };
}

const reviewedUser = (user: UserInfo): ReviewedUser => ({
  username: user.name,
  ...(user.uid && { uid: user.uid }),
  groups: user.groups,
  extra: user.extra,
});

/** The request's URL (a path of `//x` stays a path, not a host). */
function requestUrl(req: IncomingMessage): URL {
  const target = req.url?.startsWith('/') ? req.url : '/';
  return new URL(`https://front.invalid${target}`);
}

export async function startApiFront(opts: ApiFrontOptions): Promise<ApiFront> {
  const { authenticator, authorizer, api, log } = opts;
  const now = opts.now ?? (() => new Date());
  let pair = opts.tls;
  const contextOptions = () => {
    const ca = authenticator.clientCA();
    return { ...secureContextOptions(pair), ...(ca && { ca }) };
  };

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = requestUrl(req);
    const ready = opts.ready?.() ?? true;
    if (isHealthPath(url.pathname)) {
      const notReady = !ready && url.pathname.startsWith('/readyz');
      res.writeHead(notReady ? 503 : 200, { 'content-type': 'text/plain; charset=utf-8' });
      res.end(notReady ? 'catalogs not listed yet' : 'ok');
      return;
    }
    const auth = authenticator.authenticate(
      peerChain(req.socket as TLSSocket),
      req.headersDistinct,
      now(),
    );
    if (!auth.user) {
      log?.debug(
        { path: url.pathname, reason: auth.reason },
        'served API: request not authenticated',
      );
      writeStatus(res, unauthorized());
      return;
    }
    const { user } = auth;
    const info = requestInfo(req.method ?? 'GET', url);
    const decision = await authorizer.authorize(reviewedUser(user), accessRequestOf(info));
    if (!decision.allowed) {
      if (decision.status === 403) writeStatus(res, forbidden(info, user, decision.reason));
      else {
        log?.warn(
          { user: user.name, verb: info.verb, path: info.path, reason: decision.reason },
          'served API: the request could not be authorized',
        );
        writeStatus(res, authorizationFailed(decision.status));
      }
      return;
    }
    if (!ready) {
      writeStatus(res, starting(), { 'retry-after': '1' });
      return;
    }
    authenticator.clearHeaders(req);
    await api.handle(req, res, info, user);
  }

  const server = https.createServer(
    { ...contextOptions(), requestCert: true, rejectUnauthorized: false },
    (req, res) => {
      handle(req, res).catch((err: unknown) => {
        log?.warn({ err, path: req.url }, 'served API: the request failed');
        writeStatus(res, internalError());
      });
    },
  );
  server.headersTimeout = 10_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.listen.port, opts.listen.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `https://${host}:${address.port}`,
    port: address.port,
    setCertificate(next) {
      pair = next;
      server.setSecureContext(contextOptions());
    },
    setRequestHeaderConfig(config) {
      authenticator.setConfig(config);
      server.setSecureContext(contextOptions());
    },
    close: async () => {
      // The watches end first, each with its last bookmark and the end of its stream: a stream
      // cut mid-response reaches a client-go reflector through the aggregator as an ERROR event,
      // after which it lists everything again (a relist on every replica's shutdown). Bounded:
      // a watch may be stuck writing to a client that does not read.
      await Promise.race([api.close(), delay(WATCH_END_BOUND_MS, undefined, { ref: false })]);
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}

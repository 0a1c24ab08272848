// The served view mounted in the controller (`--object-view=served`, docs/served-security.md):
// the ViewSource over the controller's ClusterCatalog informer and content store, the served API
// (its handlers) behind the front (the HTTPS listener on --api-listen with the content server's
// certificate, requestheader authentication from kube-system/extension-apiserver-authentication,
// authorization by SubjectAccessReview with a short cache). Every replica runs it, leader or not.
import type { ContentProfile } from '../../api/v1/index.js';
import { DelegatedAccess } from '../../controllers/runtime/delegated-access.js';
import type { KubeClient } from '../../kube/index.js';
import { accessReviews } from '../../kube/index.js';
import type { ServingPair } from '../../server/index.js';
import { realClock } from '../../util/clock.js';
import type { ApiFront, FrontLog } from '../front/index.js';
import { RequestHeaderAuthenticator, startApiFront } from '../front/index.js';
import type { RequestHeaderConfigLog } from './authentication-config.js';
import { RequestHeaderSettings, authenticationConfigMapReader } from './authentication-config.js';
import { createServedApi } from '../index.js';
import type { CatalogIndex, HeldRevisions } from './view-source.js';
import { catalogViewSource } from './view-source.js';

/** How long an authorization is remembered: allowed and denied alike (metrics-server's 10 s). */
export const SERVED_AUTHZ_TTL_MS = 10_000;
/** Most authorizations remembered (users x requests); the oldest goes first. */
export const SERVED_AUTHZ_CACHE_ENTRIES = 4096;
/** How often the requestheader settings are read again. */
export const AUTHENTICATION_CONFIG_INTERVAL_MS = 30_000;

export interface ServedViewOptions {
  listen: { host: string; port: number };
  /** The content server's certificate (the served view needs one). */
  tls: ServingPair;
  defaultProfile: ContentProfile;
  maxObjectBytes: number;
  /** How often the requestheader settings are read again (default 30 s). */
  configIntervalMs?: number;
}

export interface ServedViewParts {
  client: KubeClient;
  catalogs: CatalogIndex;
  content: HeldRevisions & {
    blobUrl(catalog: string, blob: { schema: string; package?: string; name?: string }): string;
  };
  log: FrontLog & RequestHeaderConfigLog;
}

export interface ServedView {
  url: string;
  /** The content server's certificate was reloaded: the front serves it too. */
  setCertificate(pair: ServingPair): void;
  close(): Promise<void>;
}

export async function mountServedView(
  opts: ServedViewOptions,
  parts: ServedViewParts,
): Promise<ServedView> {
  const { client, content, log } = parts;
  const source = catalogViewSource(parts.catalogs, content, opts.defaultProfile);
  const api = createServedApi(source, {
    maxObjectBytes: opts.maxObjectBytes,
    blobUrl: (catalog, blob) => content.blobUrl(catalog, blob),
    defaultProfile: opts.defaultProfile,
  });
  const authenticator = new RequestHeaderAuthenticator();
  // Until the listener opens, the settings go to the authenticator; then to the front (which
  // also gives the handshake the new CA).
  const started: { front?: ApiFront } = {};
  const settings = new RequestHeaderSettings(
    authenticationConfigMapReader(client),
    (config) =>
      started.front
        ? started.front.setRequestHeaderConfig(config)
        : authenticator.setConfig(config),
    log,
  );
  // The first read before the listener opens: no request meets a front without its settings.
  await settings.load();
  const authorizer = new DelegatedAccess(accessReviews(client), {
    clock: realClock,
    allowTtlMs: SERVED_AUTHZ_TTL_MS,
    denyTtlMs: SERVED_AUTHZ_TTL_MS,
    maxEntries: SERVED_AUTHZ_CACHE_ENTRIES,
  });
  const front = await startApiFront({
    listen: opts.listen,
    tls: opts.tls,
    authenticator,
    authorizer,
    api,
    ready: () => parts.catalogs.hasSynced(),
    log,
  });
  started.front = front;
  const stopSettings = settings.watch(
    realClock,
    opts.configIntervalMs ?? AUTHENTICATION_CONFIG_INTERVAL_MS,
  );
  return {
    url: front.url,
    setCertificate: (pair) => front.setCertificate(pair),
    close: async () => {
      stopSettings();
      await front.close();
    },
  };
}

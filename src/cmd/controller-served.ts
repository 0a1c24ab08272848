// `--object-view=served`: the served API mounted beside the content server on every replica
// (leader or not), on --api-listen with the content server's certificate (and its reloads).
import type { Logger } from 'pino';
import type { ServedView } from '../apiserver/setup/index.js';
import { mountServedView } from '../apiserver/setup/index.js';
import type { ClusterCatalogSetup } from '../controllers/clustercatalog/setup/index.js';
import type { KubeClient } from '../kube/index.js';
import type { ContentPublisher, ServingPair } from '../server/index.js';
import type { ControllerOptions } from './controller-options.js';
import { listening } from './listen-failure.js';
import type { ServingTls } from './controller-tls.js';

export interface ServedViewDeps {
  opts: ControllerOptions;
  client: KubeClient;
  content: ContentPublisher;
  catalogs: ClusterCatalogSetup;
  tls: ServingTls | undefined;
  certificateUsers: Set<(pair: ServingPair) => void>;
  log: Logger;
}

/** The served view's listener, or undefined in the CRD mode. */
export async function startServedView(deps: ServedViewDeps): Promise<ServedView | undefined> {
  const { opts, tls } = deps;
  const objectView = opts.objectView;
  if (objectView.view !== 'served') return undefined;
  // Checked with the flags (controller-object-view.ts): the served view has a certificate.
  if (!tls) throw new Error('--object-view=served without a serving certificate');
  const view = await listening('api-listen', opts.flags['api-listen'] ?? '', () =>
    mountServedView(
      {
        listen: objectView.apiListen,
        tls: tls.certificate.current(),
        defaultProfile: opts.contentProfile,
        maxObjectBytes: opts.maxObjectBytes,
      },
      {
        client: deps.client,
        catalogs: deps.catalogs.catalogs,
        content: deps.content,
        log: deps.log,
      },
    ),
  );
  deps.certificateUsers.add((pair) => view.setCertificate(pair));
  deps.log.info({ url: view.url }, 'served API listening (--object-view=served)');
  return view;
}

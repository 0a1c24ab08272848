// `--object-view crd|served` and `--api-listen`: how CatalogMetadata objects reach clients. crd
// (the default): the controller writes them to the apiserver. served: it writes none, and every
// replica answers the Kubernetes API for them itself, through the aggregation layer, on
// --api-listen over HTTPS with the content server's certificate (docs/served-security.md).
import { OBJECT_VIEWS, isObjectView } from '../api/v1/index.js';
import { CommandError } from '../util/command-error.js';
import type { HostPort } from './host-port.js';
import { hostPort } from './host-port.js';

export interface ObjectViewFlags {
  'object-view': string;
  'api-listen'?: string | undefined;
  'tls-cert-file'?: string | undefined;
  'tls-key-file'?: string | undefined;
}

export type ObjectViewOptions = { view: 'crd' } | { view: 'served'; apiListen: HostPort };

/** The checked object view; each mistake a one-line CommandError. */
export function objectViewFromFlags(flags: ObjectViewFlags): ObjectViewOptions {
  const view = flags['object-view'];
  if (!isObjectView(view))
    throw new CommandError(
      `--object-view must be ${OBJECT_VIEWS.join(' or ')}, not ${JSON.stringify(view)}`,
    );
  const listen = flags['api-listen'];
  if (view === 'crd') {
    if (listen !== undefined)
      throw new CommandError(
        "--api-listen is the served API's address: it goes with --object-view=served",
      );
    return { view };
  }
  if (listen === undefined)
    throw new CommandError(
      '--object-view=served needs --api-listen HOST:PORT: the address the APIService reaches the served API at, e.g. :9443',
    );
  if (!flags['tls-cert-file'] || !flags['tls-key-file'])
    throw new CommandError(
      '--object-view=served needs --tls-cert-file and --tls-key-file: the aggregation layer reaches the served API over HTTPS',
    );
  return { view, apiListen: hostPort('api-listen', listen) };
}

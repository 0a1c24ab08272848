// `kubectl catalog ui`: starts the console's server on loopback, prints its URL, opens the
// browser unless --no-open, and stops on Ctrl-C (SIGINT) or SIGTERM. On another address it warns
// on stderr, and the URL carries the session's token (server.ts).
import { spawn } from 'node:child_process';
import { parseArgs } from 'node:util';
import { isObjectView } from '../../api/v1/group.js';
import { CatalogClient, readCertificateAuthority } from '../../client/index.js';
import { UiData } from './data.js';
import { startUiServer } from './server.js';

const UI_USAGE = `kubectl catalog ui: browse the catalogs of the cluster in a web browser

Usage:
  kubectl catalog ui [--address 127.0.0.1:PORT] [--no-open] [--catalog C] [--kubeconfig PATH]
                     [--server-url URL] [--certificate-authority FILE] [--object-view crd|served]

Serves the console on a local address (default 127.0.0.1 and a free port), reading through the
apiserver with your kubeconfig (nothing is deployed in the cluster). Stop it with Ctrl-C.

Options:
      --address HOST:PORT  where to listen (default 127.0.0.1:0, a free port); on an address
                           other than loopback, every request needs the token of the URL printed
      --no-open            print the URL only (default: also open the browser)
      --catalog NAME       show this ClusterCatalog only
      --kubeconfig PATH    the kubeconfig (default: $KUBECONFIG, ~/.kube/config)
      --server-url URL     where the catalogs' content server is reached from here (e.g. a
                           port-forward: http://localhost:8090), for lean catalogs' icons and
                           head details (default: the URL in the objects)
      --certificate-authority FILE
                           PEM CA the content server's certificate is verified against (an
                           HTTPS content server with a private CA)
      --object-view crd|served
                           where the CatalogMetadata are read: crd (olm.operatorframework.io/v1)
                           or served (content.olm.operatorframework.io/v1); default: found
                           from the cluster's discovery documents (the CRD's when both are)
`;

interface UiIo {
  stdout: (s: string) => void;
  stderr: (s: string) => void;
  /** Resolves when the server should stop (default: SIGINT or SIGTERM). */
  stopped?: Promise<unknown>;
  /** Opens a URL in the browser (default: xdg-open, open or start). */
  open?: (url: string) => void;
  /** Makes the client, as the plugin's other commands take it (tests inject one). */
  client?: (kubeconfig: string | undefined) => CatalogClient;
}

/** host:port, [v6]:port or :port; the port may be 0 (any free port). */
export function parseAddress(s: string): { host: string; port: number } | undefined {
  const m = /^(?:\[([0-9a-fA-F:.]+)\]|([^:[\]]*)):(\d{1,5})$/.exec(s);
  if (!m) return undefined;
  const port = Number(m[3]);
  if (port > 65535) return undefined;
  return { host: m[1] ?? (m[2] || '127.0.0.1'), port };
}

function openBrowser(url: string): void {
  const cmd =
    process.platform === 'darwin' ? 'open' : process.platform === 'win32' ? 'explorer' : 'xdg-open';
  const child = spawn(cmd, [url], { stdio: 'ignore', detached: true });
  child.on('error', () => undefined);
  child.unref();
}

export async function runUi(argv: string[], io: UiIo): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: false,
      options: {
        address: { type: 'string' },
        'no-open': { type: 'boolean' },
        catalog: { type: 'string' },
        kubeconfig: { type: 'string' },
        'server-url': { type: 'string' },
        'certificate-authority': { type: 'string' },
        'object-view': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (err) {
    io.stderr(`error: ${(err as Error).message}\nSee 'kubectl catalog ui --help'.\n`);
    return 2;
  }
  if (values.help) {
    io.stdout(UI_USAGE);
    return 0;
  }
  const addr = parseAddress(values.address ?? '127.0.0.1:0');
  if (!addr) {
    io.stderr(`error: --address ${values.address}: not HOST:PORT (e.g. 127.0.0.1:8080)\n`);
    return 2;
  }
  const serverUrl = values['server-url'];
  if (serverUrl !== undefined && !URL.canParse(serverUrl)) {
    io.stderr(`error: --server-url ${serverUrl}: not a URL (e.g. http://localhost:8090)\n`);
    return 2;
  }
  const objectView = values['object-view'];
  if (objectView !== undefined && !isObjectView(objectView)) {
    io.stderr(`error: --object-view ${objectView}: one of crd, served\n`);
    return 2;
  }
  let ca: Buffer | undefined;
  try {
    const file = values['certificate-authority'];
    if (file !== undefined) ca = readCertificateAuthority(file);
  } catch (err) {
    io.stderr(`error: ${(err as Error).message}\n`);
    return 2;
  }
  const client = io.client
    ? io.client(values.kubeconfig)
    : new CatalogClient({
        ...(values.kubeconfig !== undefined && { kubeconfig: values.kubeconfig }),
        ...(serverUrl !== undefined && { serverUrl }),
        ...(ca !== undefined && { ca }),
        ...(objectView !== undefined && { objectView }),
      });
  try {
    const server = await startUiServer({
      data: new UiData(client, values.catalog),
      host: addr.host,
      port: addr.port,
    });
    if (server.exposed)
      io.stderr(
        `warning: the console listens on ${addr.host}, not on loopback: anyone who can reach that address and has the URL below (its token) reads the catalogs with your credentials; --address 127.0.0.1:${addr.port} keeps it on this machine\n`,
      );
    io.stdout(`Serving the catalog console at ${server.url} (Ctrl-C to stop)\n`);
    // The object view is found now rather than on the first page, so that a cluster with both
    // views is said here, as the other commands say it; a failure is the pages' to show.
    client.objectView().then(
      (found) => {
        if (found.both) io.stderr(`warning: ${found.reason}\n`);
      },
      () => undefined,
    );
    if (!values['no-open']) (io.open ?? openBrowser)(server.url);
    await (io.stopped ??
      new Promise((resolve) => {
        process.once('SIGINT', resolve);
        process.once('SIGTERM', resolve);
      }));
    await server.close();
    io.stdout('Stopped.\n');
    return 0;
  } catch (err) {
    io.stderr(`error: ${(err as Error).message}\n`);
    return 1;
  } finally {
    client.close();
  }
}

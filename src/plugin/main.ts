// `kubectl catalog`: explore the catalogs of a cluster (packages, channels and their heads,
// bundles, upgrade graphs, API providers) from their CatalogMetadata objects. Every query is
// label-selected on the server and read with the consistent-list protocol (SPEC §2.1). This
// file parses the command line and dispatches; each command is a record in commands/, and the
// answers come from the client library (src/client).
import type { ParseArgsOptionsConfig } from 'node:util';
import { parseArgs } from 'node:util';
import {
  CatalogClient,
  CatalogNotFoundError,
  CatalogNotServingError,
  ContentOmittedError,
  InconsistentListError,
  UnknownBundleError,
  readCertificateAuthority,
} from '../client/index.js';
import { isObjectView } from '../api/v1/group.js';
import { CommandError, usageError } from '../util/command-error.js';
import { terminalLine, terminalText } from '../util/terminal-text.js';
import { bundles } from './commands/bundles.js';
import { channels } from './commands/channels.js';
import { graph } from './commands/graph.js';
import { list } from './commands/list.js';
import { FILTER_FLAGS, packageFilter, packages } from './commands/packages.js';
import { provides } from './commands/provides.js';
import { query } from './commands/query.js';
import { show } from './commands/show.js';
import { ui } from './commands/ui.js';
import { upgrades } from './commands/upgrades.js';
import type { Command, Ctx, Io, Opts } from './context.js';

const USAGE = `kubectl catalog: explore the catalogs of the cluster (ClusterCatalogs and their CatalogMetadata)

Usage:
  kubectl catalog list                                   catalogs and their state
  kubectl catalog packages [--catalog C] [FILTERS]       packages (default channel, channel count,
                                                         deprecation); filters below
  kubectl catalog show PACKAGE [--catalog C] [--long]    what to know before installing: provider,
                                                         description, install modes, versions,
                                                         APIs, deprecation
  kubectl catalog channels PACKAGE [--catalog C]         channels with their head and entry count
  kubectl catalog bundles PACKAGE [--channel CH] [--catalog C]
                                                         bundles: version, image, provided APIs
  kubectl catalog graph PACKAGE [--channel CH] [--catalog C] [-o text|mermaid|dot|json|yaml]
                                                         the upgrade graph of a channel
                                                         (default: the package's default channel)
  kubectl catalog upgrades PACKAGE --from VERSION|BUNDLE [--channel CH] [--catalog C]
                                                         the bundles an installation can move to
                                                         in one step, and the path to the head
  kubectl catalog provides GROUP/VERSION/KIND [--catalog C]
                                                         packages and bundles that provide an API
  kubectl catalog query GRAPHQL [--catalog C] [--variables JSON] [--operation-name NAME]
                                                         a GraphQL query, to one catalog or
                                                         across every serving catalog
  kubectl catalog ui [--address HOST:PORT] [--no-open] [--catalog C]
                                                         browse the catalogs in a web browser

Filters of packages (AND; all but --search and --openshift-version need the default channel
head's olm.csv.metadata, and a package without it does not match them):
      --install-mode MODE      OwnNamespace|SingleNamespace|MultiNamespace|AllNamespaces supported
      --kube-version V         the head's minKubeVersion is absent or <= V
      --openshift-version V    no olm.maxOpenShiftVersion below V (packages without one match)
      --arch A, --os O         operatorframework.io/arch.A / os.O labels (none: amd64, linux)
      --category C, --capability C, --provider TEXT, --keyword K
      --search TEXT            in name, display name, keywords or description

Options:
  -o, --output FORMAT   json or yaml (default: a table; graph: text, mermaid, dot)
      --no-headers      tables without the header line
      --catalog NAME    only this ClusterCatalog (needed when a package is in several)
      --channel NAME    the channel (default: the package's default channel)
      --from VERSION|BUNDLE
                        upgrades: the installed version or bundle name
      --long            show: the whole description
      --kubeconfig PATH the kubeconfig (default: $KUBECONFIG, ~/.kube/config)
      --server-url URL  where the catalogs' content server is reached from here (e.g. a
                        port-forward: http://localhost:8090); blobs not whole in their objects
                        (lean catalogs, oversized blobs) are read from it (default: the URL in
                        the objects, status.urls.base)
      --certificate-authority FILE
                        PEM CA the content server's certificate is verified against (an HTTPS
                        content server with a private CA; default: the system roots and
                        NODE_EXTRA_CA_CERTS); through the apiserver's service proxy the
                        kubeconfig's CA is used
      --object-view crd|served
                        where the CatalogMetadata are read: crd (olm.operatorframework.io/v1)
                        or served (content.olm.operatorframework.io/v1); default: found from
                        the cluster's discovery documents (the CRD's when both are there)
  -h, --help            this help (kubectl catalog show|upgrades|query -h: that command's)
`;

/** The commands that read the flags below; `ui` parses its own. */
const COMMANDS: Record<string, Command> = Object.fromEntries(
  [list, packages, show, channels, bundles, graph, upgrades, provides, query].map((c) => [
    c.name,
    c,
  ]),
);

/** The flags of every command: the global ones, and those scoped to some commands. */
const GLOBAL_FLAGS = {
  output: { type: 'string', short: 'o' },
  'no-headers': { type: 'boolean' },
  kubeconfig: { type: 'string' },
  'server-url': { type: 'string' },
  'certificate-authority': { type: 'string' },
  'object-view': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;
const SCOPED_FLAGS = [
  'catalog',
  'channel',
  'from',
  'long',
  'variables',
  'operation-name',
  ...Object.values(FILTER_FLAGS),
] as const;
const BOOLEAN_FLAGS = new Set<string>(['long']);

const OPTIONS: ParseArgsOptionsConfig = {
  ...GLOBAL_FLAGS,
  ...Object.fromEntries(
    SCOPED_FLAGS.map((f) => [f, { type: BOOLEAN_FLAGS.has(f) ? 'boolean' : 'string' }] as const),
  ),
};

type Values = Record<string, string | boolean | undefined>;

export async function run(argv: string[], io: Io): Promise<number> {
  if (argv[0] === ui.name) return ui.run(argv.slice(1), io);
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      strict: true,
      options: OPTIONS,
    });
  } catch (err) {
    io.stderr(`error: ${(err as Error).message}\nSee 'kubectl catalog --help'.\n`);
    return 2;
  }
  const values = parsed.values as Values;
  const { positionals } = parsed;
  if (values.help || positionals.length === 0) {
    const commandHelp = values.help ? COMMANDS[positionals[0] ?? '']?.help : undefined;
    if (commandHelp !== undefined) io.stdout(commandHelp);
    else (values.help ? io.stdout : io.stderr)(USAGE);
    return values.help ? 0 : 2;
  }
  const [name, ...args] = positionals;
  try {
    const command = commandOf(name!, args, values);
    const opts = optsOf(values);
    const client = clientOf(io, values);
    const ctx: Ctx = { client, io: guarded(io, opts), opts, now: io.now?.() ?? new Date() };
    try {
      return await command.run(ctx, args[0] ?? '');
    } finally {
      // Both views on the cluster: the answer came from the CRD's, which the user should know.
      const found = client.foundObjectView;
      if (found?.both) ctx.io.stderr(`warning: ${found.reason}\n`);
      client.close();
    }
  } catch (err) {
    return reportError(io, err);
  }
}

/** The command, with its arguments and flags checked (usage errors otherwise). */
function commandOf(name: string, args: string[], values: Values): Command {
  const command = COMMANDS[name];
  if (!command)
    throw usageError(
      `unknown command ${JSON.stringify(name)}; one of: ${Object.keys(COMMANDS).join(', ')}`,
    );
  if (args.length !== (command.arg === '' ? 0 : 1))
    throw usageError(
      command.arg === ''
        ? `${name} takes no arguments`
        : `${name} needs ${command.arg} (see 'kubectl catalog --help')`,
    );
  for (const f of SCOPED_FLAGS) {
    if (values[f] !== undefined && !command.flags.includes(f))
      throw usageError(`--${f} does not apply to ${name}`);
  }
  for (const [f, message] of Object.entries(command.required ?? {}))
    if (values[f] === undefined) throw usageError(message);
  const output = values.output as string | undefined;
  if (output !== undefined && !command.outputs.includes(output))
    throw usageError(
      `unknown output format ${JSON.stringify(output)} for ${name}; one of: ${command.outputs.join(', ')}`,
    );
  return command;
}

function optsOf(values: Values): Opts {
  const str = (f: string) => values[f] as string | undefined;
  return {
    noHeaders: values['no-headers'] === true,
    ...(str('output') !== undefined && { output: str('output') }),
    ...(str('catalog') !== undefined && { catalog: str('catalog') }),
    ...(str('channel') !== undefined && { channel: str('channel') }),
    ...(str('from') !== undefined && { from: str('from') }),
    filter: packageFilter((f) => values[f]),
    long: values.long === true,
    ...(str('variables') !== undefined && { variables: str('variables') }),
    ...(str('operation-name') !== undefined && { operationName: str('operation-name') }),
  };
}

function clientOf(io: Io, values: Values): CatalogClient {
  const serverUrl = values['server-url'] as string | undefined;
  if (serverUrl !== undefined && !URL.canParse(serverUrl))
    throw usageError(`--server-url ${serverUrl}: not a URL (e.g. http://localhost:8090)`);
  const ca = certificateAuthority(values['certificate-authority'] as string | undefined);
  const objectView = values['object-view'] as string | undefined;
  if (objectView !== undefined && !isObjectView(objectView))
    throw usageError(`--object-view ${objectView}: one of crd, served`);
  const make =
    io.client ??
    ((kubeconfig) =>
      new CatalogClient({
        ...(kubeconfig !== undefined && { kubeconfig }),
        ...(serverUrl !== undefined && { serverUrl }),
        ...(ca !== undefined && { ca }),
        ...(objectView !== undefined && { objectView }),
      }));
  return make(values.kubeconfig as string | undefined);
}

/** --certificate-authority FILE read, or undefined without the flag; a bad file is a usage error. */
function certificateAuthority(file: string | undefined): Buffer | undefined {
  if (file === undefined) return undefined;
  try {
    return readCertificateAuthority(file);
  } catch (err) {
    throw usageError((err as Error).message);
  }
}

/**
 * The streams with the escaping rule applied to whatever text reaches them (newlines and tabs
 * kept): a guard behind the commands, which escape each catalog string where they word it (one
 * line where one line is meant, columns measured after). The rule is idempotent, so text escaped
 * already passes unchanged. Documents (-o json|yaml) are escaped as JSON and YAML escape.
 */
function guarded(io: Io, opts: Opts): Io {
  const document = opts.output === 'json' || opts.output === 'yaml';
  return {
    ...io,
    stdout: document ? io.stdout : (s) => io.stdout(terminalText(s)),
    stderr: (s) => io.stderr(terminalText(s)),
  };
}

/** Errors the user can act on print their message; anything else its message too, exit 1. */
function reportError(io: Io, err: unknown): number {
  const known =
    err instanceof CommandError ||
    err instanceof CatalogNotFoundError ||
    err instanceof CatalogNotServingError ||
    err instanceof InconsistentListError ||
    err instanceof ContentOmittedError ||
    err instanceof UnknownBundleError;
  const message = known ? err.message : String((err as Error)?.message ?? err);
  // Messages quote catalog text (names, versions, a catalog's condition): one line, escaped.
  io.stderr(`error: ${terminalLine(message)}\n`);
  return err instanceof CommandError ? err.exitCode : 1;
}

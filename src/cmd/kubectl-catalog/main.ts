// `kubectl catalog`: explore the catalogs of a cluster (packages, channels and their heads,
// bundles, upgrade graphs, API providers) from their CatalogMetadata objects. Every query is
// label-selected on the server and read with the consistent-list protocol (SPEC §2.1).
import { parseArgs } from 'node:util';
import { dump } from 'js-yaml';
import type { CatalogMetadata, ClusterCatalog } from '../../api/v1/index.js';
import { TYPE_PROGRESSING, TYPE_SERVING, findCondition } from '../../api/v1/index.js';
import type {
  AnyBlob,
  BundleBlob,
  ChannelBlob,
  DeprecationsBlob,
  PackageBlob,
} from '../../client/index.js';
import {
  CatalogClient,
  CatalogNotFoundError,
  CatalogNotServingError,
  ContentOmittedError,
  InconsistentListError,
  SCHEMA_BUNDLE,
  SCHEMA_CHANNEL,
  SCHEMA_DEPRECATIONS,
  SCHEMA_PACKAGE,
  UnknownBundleError,
  bundleGvks,
  bundleVersion,
  channelHead,
  channelsOf,
  deprecationMessage,
  readCertificateAuthority,
  formatGvk,
  gvkProviders,
  isBundleBlob,
  isChannelBlob,
  isDeprecationsBlob,
  isPackageBlob,
  isServing,
  labelValue,
  parseGvk,
  sortBundlesByVersion,
  sortProviders,
  packageDetails,
  resolveInstalled,
  resolverBlob,
  upgradeGraph,
  upgradesFrom,
  versionMap,
  withWholeDefaultHead,
} from '../../client/index.js';
import type {
  InstallMode,
  PackageDetails,
  PackageFacts,
  PackageFilter,
  PathStep,
  UpgradeCandidate,
} from '../../client/index.js';
import {
  INSTALL_MODES,
  looseVersion,
  matchesPackageFilter,
  needsHead,
  packageFacts,
} from '../../client/index.js';
import { graphDot, graphMermaid, graphText } from './graph-format.js';
import { age, excerpt, formatTable, shortDigest } from './table.js';
import { runUi } from './ui/command.js';

export const USAGE = `kubectl catalog: explore the catalogs of the cluster (ClusterCatalogs and their CatalogMetadata)

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
  -h, --help            this help (kubectl catalog show|upgrades -h: that command's)
`;

/** `kubectl catalog COMMAND -h`: the command's own help (others print USAGE). */
const COMMAND_HELP: Record<string, string> = {
  show: `kubectl catalog show: what to know before installing a package, on one screen

Usage:
  kubectl catalog show PACKAGE [--catalog C] [--long] [-o json|yaml]

Reads the package, its channels, bundles and deprecations (one label-selected list) and shows
the package with its default channel's head bundle's CSV metadata: display name, provider,
deprecation, default channel and head version, channels, install modes, min Kube version, max
OpenShift version, infrastructure features, architectures and operating systems, capability
level, maturity, categories, keywords, provided APIs, links, maintainers and the description
(its first paragraph, at most 300 characters; --long: all of it).

Options:
      --long             the whole description
      --catalog NAME     the ClusterCatalog (needed when the package is in several)
  -o, --output FORMAT    json or yaml: the same facts as a document (the description whole)
Exit codes: 0, 1 error (e.g. unknown package), 2 usage.
`,
  upgrades: `kubectl catalog upgrades: the bundles an installation can move to in one step, and the path to the channel head

Usage:
  kubectl catalog upgrades PACKAGE --from VERSION|BUNDLE [--channel CH] [--catalog C] [-o json|yaml]

A channel entry E is a one-step upgrade of the installed bundle B when E replaces B, E skips B,
or B's version is in E's skipRange (github.com/blang/semver/v4 ranges, as OLM reads them:
pre-releases match like any version). --from takes a bundle name or a version (a leading v is
allowed). The path to the head takes the fewest steps, the newest bundle first among equals.

Options:
      --from VERSION|BUNDLE  the installed version or bundle name (required)
      --channel NAME         the channel (default: the package's default channel)
      --catalog NAME         the ClusterCatalog (needed when the package is in several)
  -o, --output FORMAT        json or yaml: {package, channel, catalog, from, items, head, path, ...}
      --no-headers           the table only, without its header and the path line
Exit codes: 0 (also when there is no upgrade), 1 error (unknown package, channel or version), 2 usage.
`,
};

export interface Io {
  stdout: (s: string) => void;
  stderr: (s: string) => void;
  /** Makes the client (tests inject one that counts requests). */
  client?: (kubeconfig: string | undefined) => CatalogClient;
  now?: () => Date;
}

/** An error for the user: printed as `error: <message>`, exit code 1 (2 for usage). */
/** --certificate-authority FILE read, or undefined without the flag; a bad file is a UserError. */
function certificateAuthority(file: string | undefined): Buffer | undefined {
  if (file === undefined) return undefined;
  try {
    return readCertificateAuthority(file);
  } catch (err) {
    throw new UserError((err as Error).message, 2);
  }
}

export class UserError extends Error {
  constructor(
    message: string,
    readonly code = 1,
  ) {
    super(message);
  }
}

interface Opts {
  output?: string;
  noHeaders: boolean;
  catalog?: string;
  channel?: string;
  from?: string;
  filter?: PackageFilter;
  long: boolean;
}

/** PackageFilter field → its flag. */
const FILTER_FLAGS: Record<keyof PackageFilter, string> = {
  installMode: 'install-mode',
  kubeVersion: 'kube-version',
  openshiftVersion: 'openshift-version',
  arch: 'arch',
  os: 'os',
  category: 'category',
  capability: 'capability',
  provider: 'provider',
  keyword: 'keyword',
  search: 'search',
};

const COMMANDS: Record<string, { args: number; flags: string[]; outputs: string[] }> = {
  list: { args: 0, flags: [], outputs: ['json', 'yaml'] },
  packages: {
    args: 0,
    flags: ['catalog', ...Object.values(FILTER_FLAGS)],
    outputs: ['json', 'yaml'],
  },
  show: { args: 1, flags: ['catalog', 'long'], outputs: ['json', 'yaml'] },
  channels: { args: 1, flags: ['catalog'], outputs: ['json', 'yaml'] },
  bundles: { args: 1, flags: ['catalog', 'channel'], outputs: ['json', 'yaml'] },
  graph: {
    args: 1,
    flags: ['catalog', 'channel'],
    outputs: ['text', 'mermaid', 'dot', 'json', 'yaml'],
  },
  upgrades: { args: 1, flags: ['catalog', 'channel', 'from'], outputs: ['json', 'yaml'] },
  provides: { args: 1, flags: ['catalog'], outputs: ['json', 'yaml'] },
};

/** The flags that take a value and apply to some commands only. */
const SCOPED_FLAGS = ['catalog', 'channel', 'from', 'long', ...Object.values(FILTER_FLAGS)];

export async function run(argv: string[], io: Io): Promise<number> {
  if (argv[0] === 'ui') return runUi(argv.slice(1), io);
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      strict: true,
      options: {
        output: { type: 'string', short: 'o' },
        'no-headers': { type: 'boolean' },
        kubeconfig: { type: 'string' },
        'server-url': { type: 'string' },
        'certificate-authority': { type: 'string' },
        catalog: { type: 'string' },
        channel: { type: 'string' },
        from: { type: 'string' },
        long: { type: 'boolean' },
        ...Object.fromEntries(
          Object.values(FILTER_FLAGS).map((f) => [f, { type: 'string' as const }]),
        ),
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (err) {
    io.stderr(`error: ${(err as Error).message}\nSee 'kubectl catalog --help'.\n`);
    return 2;
  }
  const { values, positionals } = parsed;
  const commandHelp = values.help ? COMMAND_HELP[positionals[0] ?? ''] : undefined;
  if (commandHelp !== undefined) {
    io.stdout(commandHelp);
    return 0;
  }
  if (values.help || positionals.length === 0) {
    (values.help ? io.stdout : io.stderr)(USAGE);
    return values.help ? 0 : 2;
  }
  const [command, ...args] = positionals;
  const spec = COMMANDS[command!];
  try {
    if (!spec)
      throw new UserError(
        `unknown command ${JSON.stringify(command)}; one of: ${Object.keys(COMMANDS).join(', ')}`,
        2,
      );
    if (args.length !== spec.args)
      throw new UserError(
        spec.args === 0
          ? `${command} takes no arguments`
          : `${command} needs ${command === 'provides' ? 'GROUP/VERSION/KIND' : 'PACKAGE'} (see 'kubectl catalog --help')`,
        2,
      );
    const flag = (f: string) => (values as Record<string, string | boolean | undefined>)[f];
    for (const f of SCOPED_FLAGS) {
      if (flag(f) !== undefined && !spec.flags.includes(f))
        throw new UserError(`--${f} does not apply to ${command}`, 2);
    }
    if (command === 'upgrades' && values.from === undefined)
      throw new UserError(
        'upgrades needs --from VERSION|BUNDLE (the installed version or bundle name)',
        2,
      );
    if (values.output !== undefined && !spec.outputs.includes(values.output))
      throw new UserError(
        `unknown output format ${JSON.stringify(values.output)} for ${command}; one of: ${spec.outputs.join(', ')}`,
        2,
      );
    const opts: Opts = {
      noHeaders: values['no-headers'] === true,
      ...(values.output !== undefined && { output: values.output }),
      ...(values.catalog !== undefined && { catalog: values.catalog }),
      ...(values.channel !== undefined && { channel: values.channel }),
      ...(values.from !== undefined && { from: values.from }),
      filter: packageFilter(flag),
      long: values.long === true,
    };
    const serverUrl = values['server-url'];
    if (serverUrl !== undefined && !URL.canParse(serverUrl))
      throw new UserError(`--server-url ${serverUrl}: not a URL (e.g. http://localhost:8090)`, 2);
    const ca = certificateAuthority(values['certificate-authority']);
    const client = (
      io.client ??
      ((k) =>
        new CatalogClient({
          ...(k !== undefined && { kubeconfig: k }),
          ...(serverUrl !== undefined && { serverUrl }),
          ...(ca !== undefined && { ca }),
        }))
    )(values.kubeconfig);
    const ctx: Ctx = { client, io, opts, now: io.now?.() ?? new Date() };
    try {
      switch (command) {
        case 'list':
          return await list(ctx);
        case 'packages':
          return await packages(ctx);
        case 'show':
          return await show(ctx, args[0]!);
        case 'channels':
          return await channels(ctx, args[0]!);
        case 'bundles':
          return await bundles(ctx, args[0]!);
        case 'graph':
          return await graph(ctx, args[0]!);
        case 'upgrades':
          return await upgrades(ctx, args[0]!);
        default:
          return await provides(ctx, args[0]!);
      }
    } finally {
      client.close();
    }
  } catch (err) {
    const known =
      err instanceof UserError ||
      err instanceof CatalogNotFoundError ||
      err instanceof CatalogNotServingError ||
      err instanceof InconsistentListError ||
      err instanceof ContentOmittedError ||
      err instanceof UnknownBundleError;
    io.stderr(`error: ${known ? err.message : String((err as Error)?.message ?? err)}\n`);
    return err instanceof UserError ? err.code : 1;
  }
}

/** The filters of `packages` from the flags; invalid values are usage errors. */
function packageFilter(flag: (f: string) => string | boolean | undefined): PackageFilter {
  const filter: PackageFilter = {};
  for (const [key, name] of Object.entries(FILTER_FLAGS) as Array<[keyof PackageFilter, string]>) {
    const v = flag(name);
    if (typeof v !== 'string') continue;
    if (key === 'installMode' && !INSTALL_MODES.includes(v as InstallMode))
      throw new UserError(`--install-mode ${v}: one of ${INSTALL_MODES.join(', ')}`, 2);
    if ((key === 'kubeVersion' || key === 'openshiftVersion') && !looseVersion(v))
      throw new UserError(`--${name} ${v}: not a version (e.g. 1.30 or 1.30.2)`, 2);
    (filter as Record<string, string>)[key] = v;
  }
  return filter;
}

interface Ctx {
  client: CatalogClient;
  io: Io;
  opts: Opts;
  now: Date;
}

/** Prints a document as JSON or YAML (-o json|yaml). */
function printDocument(ctx: Ctx, doc: unknown): void {
  ctx.io.stdout(
    ctx.opts.output === 'json'
      ? `${JSON.stringify(doc, null, 2)}\n`
      : dump(doc, { noRefs: true, lineWidth: -1 }),
  );
}

/** Prints rows as a table, or `{items}` as JSON or YAML. */
function print(
  ctx: Ctx,
  headers: string[],
  rows: string[][],
  items: unknown[],
  empty: string,
): number {
  const { noHeaders } = ctx.opts;
  if (isDocument(ctx)) printDocument(ctx, { items });
  else if (rows.length === 0) ctx.io.stderr(`${empty}\n`);
  else ctx.io.stdout(formatTable(headers, rows, { noHeaders }));
  return 0;
}

/** Whether the output is a document (json, yaml) rather than text for a person. */
function isDocument(ctx: Ctx): boolean {
  return ctx.opts.output === 'json' || ctx.opts.output === 'yaml';
}

function warn(ctx: Ctx, msg: string): void {
  ctx.io.stderr(`warning: ${msg}\n`);
}

function conditionText(c: ClusterCatalog, type: string): string {
  const cond = findCondition(c.status?.conditions, type);
  return cond ? `${cond.status} (${cond.reason})` : 'Unknown';
}

// ---- list -------------------------------------------------------------------------------

async function list(ctx: Ctx): Promise<number> {
  const catalogs = await ctx.client.listCatalogs();
  const rows = catalogs.map((c) => [
    c.metadata.name,
    conditionText(c, TYPE_SERVING),
    conditionText(c, TYPE_PROGRESSING),
    c.status?.objectCount !== undefined ? String(c.status.objectCount) : '',
    age(c.status?.lastUnpacked, ctx.now),
    shortDigest(c.status?.resolvedSource?.image?.ref),
  ]);
  const items = catalogs.map((c) => {
    const serving = findCondition(c.status?.conditions, TYPE_SERVING);
    const progressing = findCondition(c.status?.conditions, TYPE_PROGRESSING);
    return {
      name: c.metadata.name,
      image: c.spec.source.image?.ref,
      priority: c.spec.priority ?? 0,
      availabilityMode: c.spec.availabilityMode ?? 'Available',
      serving: serving
        ? { status: serving.status, reason: serving.reason, message: serving.message }
        : undefined,
      progressing: progressing
        ? { status: progressing.status, reason: progressing.reason, message: progressing.message }
        : undefined,
      resolvedRef: c.status?.resolvedSource?.image?.ref,
      contentHash: c.status?.contentHash,
      objectCount: c.status?.objectCount,
      lastUnpacked: c.status?.lastUnpacked,
      syncingTo: c.status?.syncingTo || undefined,
      urlBase: c.status?.urls?.base,
    };
  });
  return print(
    ctx,
    ['NAME', 'SERVING', 'PROGRESSING', 'OBJECTS', 'LAST UNPACKED', 'DIGEST'],
    rows,
    items,
    'No catalogs found (create a ClusterCatalog).',
  );
}

// ---- shared: blobs of a package ---------------------------------------------------------

/**
 * What resolvers read of each object: a lean catalog's partial content as is (its display-only
 * parts left out), only content omitted whole fetched.
 */
async function blobs(ctx: Ctx, items: CatalogMetadata[]): Promise<AnyBlob[]> {
  return (await ctx.client.resolverContents(items)).map(resolverBlob);
}

interface PackageView {
  catalog: string;
  contentHash: string;
  pkg: PackageBlob;
  channels: ChannelBlob[];
  bundles: BundleBlob[];
  deprecations?: DeprecationsBlob;
  /** The package's deprecation message. */
  deprecated?: string;
}

/**
 * The catalog that holds the package: --catalog, or the only catalog with an olm.package blob
 * of that name (one label-selected list: `schema=olm.package,name=P`).
 */
async function resolveCatalog(ctx: Ctx, pkg: string): Promise<string> {
  if (ctx.opts.catalog !== undefined) return ctx.opts.catalog;
  const found = new Set<string>();
  for await (const o of ctx.client.listMetadata({ schema: SCHEMA_PACKAGE, name: pkg }))
    found.add(o.spec.catalog.name);
  let catalogs = [...found].sort();
  if (catalogs.length > 1) {
    // Objects of a deleted catalog linger until garbage collection: count Serving catalogs only.
    const serving = new Set(
      (await ctx.client.catalogsByName(catalogs)).filter(isServing).map((c) => c.metadata.name),
    );
    catalogs = catalogs.filter((c) => serving.has(c));
  }
  if (catalogs.length === 1) return catalogs[0]!;
  if (catalogs.length > 1)
    throw new UserError(
      `package ${JSON.stringify(pkg)} is in ${catalogs.length} catalogs: ${catalogs.join(', ')}; choose one with --catalog, e.g. --catalog ${catalogs[0]}`,
    );
  // Not found: say whether some catalog could not be searched yet.
  const notServing = (await ctx.client.listCatalogs()).filter((c) => !isServing(c));
  const pending = notServing.length
    ? `; not Serving yet (so not searched): ${notServing.map((c) => `${c.metadata.name} (${conditionText(c, TYPE_SERVING)})`).join(', ')}`
    : '';
  throw new UserError(
    `package ${JSON.stringify(pkg)} not found in any catalog${pending}; search with: kubectl catalog packages --search ${searchHint(pkg)}`,
  );
}

function searchHint(pkg: string): string {
  const word = pkg.split(/[^A-Za-z0-9]+/).find((w) => w.length >= 3) ?? pkg;
  return /^[A-Za-z0-9._-]+$/.test(word) ? word : JSON.stringify(word);
}

/**
 * One consistent read of the package's blobs of the given schemas in its catalog. Bundles are
 * what resolvers read (lean: without CSV metadata), except, with `wholeHead`, the default
 * channel's head: its whole blob (fetched when the catalog is lean), for its CSV metadata.
 */
async function packageView(
  ctx: Ctx,
  pkg: string,
  schemas: string[],
  opts: { wholeHead?: boolean } = {},
): Promise<PackageView> {
  const catalog = await resolveCatalog(ctx, pkg);
  const list = await ctx.client.consistentList({
    catalog,
    packageOrName: pkg,
    schema: [SCHEMA_PACKAGE, ...schemas],
  });
  const all = await blobs(ctx, list.items);
  const p = all.find(isPackageBlob);
  if (!p)
    throw new UserError(
      `package ${JSON.stringify(pkg)} not found in catalog ${JSON.stringify(catalog)}; list its packages with: kubectl catalog packages --catalog ${catalog}`,
    );
  const channels = all.filter(isChannelBlob).sort((a, b) => (a.name < b.name ? -1 : 1));
  const bundles = opts.wholeHead
    ? await withWholeDefaultHead(ctx.client, p, channels, all.filter(isBundleBlob), list.items)
    : all.filter(isBundleBlob);
  const deprecations = all.find(isDeprecationsBlob);
  const deprecated = deprecationMessage(deprecations, SCHEMA_PACKAGE);
  // Tables say it on stderr; documents carry it (packageDeprecated).
  if (deprecated !== undefined && !isDocument(ctx))
    warn(ctx, `package ${p.name} is deprecated: ${deprecated}`);
  return {
    catalog,
    contentHash: list.contentHash!,
    pkg: p,
    channels,
    bundles,
    ...(deprecations && { deprecations }),
    ...(deprecated !== undefined && { deprecated }),
  };
}

/** The channel --channel names, else the package's default channel. */
function chosenChannel(ctx: Ctx, view: PackageView): ChannelBlob {
  const name = ctx.opts.channel ?? view.pkg.defaultChannel;
  if (name === undefined)
    throw new UserError(
      `package ${JSON.stringify(view.pkg.name)} has no default channel; choose one with --channel (${view.channels.map((c) => c.name).join(', ')})`,
    );
  return pickChannel(view, name);
}

function pickChannel(view: PackageView, name: string): ChannelBlob {
  const ch = view.channels.find((c) => c.name === name);
  if (!ch)
    throw new UserError(
      `package ${JSON.stringify(view.pkg.name)} has no channel ${JSON.stringify(name)}; its channels: ${view.channels.map((c) => c.name).join(', ') || '<none>'}`,
    );
  return ch;
}

// ---- packages ---------------------------------------------------------------------------

interface PackageRow {
  catalog: string;
  pkg: PackageBlob;
  channels: number;
  deprecated?: string;
  facts?: PackageFacts;
}

const byCatalogAndName = (catalog: string, name: string) => `${catalog}\0${name}`;

/** Head bundle names per request: keeps the request line well under the apiserver's limits. */
const HEAD_CHUNK = 100;

/**
 * The packages with their channel counts and deprecations. Without filters: the olm.package and
 * olm.deprecations blobs, and a metadata-only list of channels for the counts. With filters:
 * the package, channel and deprecations blobs, then the bundles (paginated, only the default
 * channels' heads kept), both of the same revisions (retried otherwise).
 */
async function packageRows(ctx: Ctx, filter: PackageFilter): Promise<PackageRow[]> {
  const { catalog } = ctx.opts;
  const inCatalog = catalog !== undefined ? { catalog } : {};
  const withHead = needsHead(filter);
  for (let attempt = 1; ; attempt++) {
    const list = await ctx.client.consistentList(
      {
        schema: [SCHEMA_PACKAGE, SCHEMA_DEPRECATIONS, ...(withHead ? [SCHEMA_CHANNEL] : [])],
        ...inCatalog,
      },
      { skipSyncing: true },
    );
    const pkgs: Array<{ catalog: string; pkg: PackageBlob }> = [];
    const channels = new Map<string, ChannelBlob[]>();
    const deprecations = new Map<string, DeprecationsBlob>();
    const listed = await blobs(ctx, list.items);
    for (const [i, o] of list.items.entries()) {
      const b = listed[i]!;
      const cat = o.spec.catalog.name;
      if (isPackageBlob(b)) pkgs.push({ catalog: cat, pkg: b });
      else if (isDeprecationsBlob(b)) deprecations.set(byCatalogAndName(cat, b.package), b);
      else if (isChannelBlob(b)) {
        const k = byCatalogAndName(cat, b.package);
        channels.set(k, [...(channels.get(k) ?? []), b]);
      }
    }
    const rowOf = (p: { catalog: string; pkg: PackageBlob }, count: number): PackageRow => {
      const deprecated = deprecationMessage(
        deprecations.get(byCatalogAndName(p.catalog, p.pkg.name)),
        SCHEMA_PACKAGE,
      );
      return { ...p, channels: count, ...(deprecated !== undefined && { deprecated }) };
    };
    if (!withHead) {
      for (const s of list.skipped)
        warn(ctx, `catalog ${s} is syncing: its packages are not shown`);
      // Channel counts from labels only (metadata-only list, no content).
      const counts = new Map<string, number>();
      if (pkgs.length > 0) {
        for await (const o of ctx.client.listMetadataLabels({
          schema: SCHEMA_CHANNEL,
          ...inCatalog,
        })) {
          const l = o.metadata.labels ?? {};
          const key = byCatalogAndName(l.catalog ?? '', l.package ?? '');
          counts.set(key, (counts.get(key) ?? 0) + 1);
        }
      }
      return pkgs.map((p) =>
        rowOf(p, counts.get(byCatalogAndName(labelValue(p.catalog), labelValue(p.pkg.name))) ?? 0),
      );
    }
    // The default channels' heads, then only those bundles.
    const heads = new Set<string>();
    for (const p of pkgs) {
      const ch = (channels.get(byCatalogAndName(p.catalog, p.pkg.name)) ?? []).find(
        (c) => c.name === p.pkg.defaultChannel,
      );
      const head = ch ? channelHead(ch).head : undefined;
      if (head !== undefined) heads.add(byCatalogAndName(p.catalog, head));
    }
    // Only the heads' bundles, selected by name (`name in (...)`, HEAD_CHUNK names a request).
    const headNames = [...new Set([...heads].map((k) => k.slice(k.indexOf('\0') + 1)))].sort();
    const bundleItems: CatalogMetadata[] = [];
    let same = true;
    for (let i = 0; i < headNames.length && same; i += HEAD_CHUNK) {
      const part = await ctx.client.consistentList(
        { schema: SCHEMA_BUNDLE, name: headNames.slice(i, i + HEAD_CHUNK), ...inCatalog },
        {
          skipSyncing: true,
          keep: (o) => heads.has(byCatalogAndName(o.spec.catalog.name, o.spec.name ?? '')),
        },
      );
      same = Object.entries(list.revisions).every(([c, h]) => part.revisions[c] === h);
      bundleItems.push(...part.items);
    }
    if (!same && attempt < 3) continue;
    if (!same)
      throw new InconsistentListError(
        'the catalogs changed between the list of packages and the list of their bundles three times; try again later',
      );
    for (const s of list.skipped) warn(ctx, `catalog ${s} is syncing: its packages are not shown`);
    // The heads' whole blobs (their CSV metadata; fetched a few at a time when lean).
    const bundles = new Map<string, BundleBlob[]>();
    const whole = await ctx.client.blobsOf(bundleItems);
    for (const [i, o] of bundleItems.entries()) {
      const b = whole[i]!;
      if (!isBundleBlob(b)) continue;
      const k = byCatalogAndName(o.spec.catalog.name, b.package);
      bundles.set(k, [...(bundles.get(k) ?? []), b]);
    }
    const rows: PackageRow[] = [];
    for (const p of pkgs) {
      const k = byCatalogAndName(p.catalog, p.pkg.name);
      const chs = channels.get(k) ?? [];
      const facts = packageFacts(p.pkg, chs, bundles.get(k) ?? []);
      if (matchesPackageFilter(facts, filter)) rows.push({ ...rowOf(p, chs.length), facts });
    }
    return rows;
  }
}

async function packages(ctx: Ctx): Promise<number> {
  const filter = ctx.opts.filter ?? {};
  const rows = await packageRows(ctx, filter);
  rows.sort((a, b) =>
    a.pkg.name !== b.pkg.name ? (a.pkg.name < b.pkg.name ? -1 : 1) : a.catalog < b.catalog ? -1 : 1,
  );
  const filters = Object.entries(filter)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `--${FILTER_FLAGS[k as keyof PackageFilter]} ${String(v)}`);
  return print(
    ctx,
    ['NAME', 'CATALOG', 'DEFAULT CHANNEL', 'CHANNELS', 'DEPRECATED', 'DESCRIPTION'],
    rows.map((r) => [
      r.pkg.name,
      r.catalog,
      r.pkg.defaultChannel ?? '',
      String(r.channels),
      String(r.deprecated !== undefined),
      excerpt(typeof r.pkg.description === 'string' ? r.pkg.description : ''),
    ]),
    rows.map((r) => {
      const {
        name: _name,
        description: _description,
        hasCsvMetadata,
        ...facts
      } = r.facts ?? {
        hasCsvMetadata: undefined,
      };
      return {
        name: r.pkg.name,
        catalog: r.catalog,
        defaultChannel: r.pkg.defaultChannel,
        channels: r.channels,
        description: r.pkg.description,
        ...(r.deprecated !== undefined && { deprecated: r.deprecated }),
        ...(r.facts && { ...facts, csvMetadata: hasCsvMetadata }),
      };
    }),
    filters.length > 0
      ? `No packages match ${filters.join(' ')}.`
      : 'No packages found (is any catalog Serving? see: kubectl catalog list).',
  );
}

// ---- show -------------------------------------------------------------------------------

/** The description in the short form: its first paragraph, at most 300 characters. */
function shortDescription(d: string): string {
  const first = d
    .trim()
    .split(/\n\s*\n/)[0]!
    .replace(/\s+/g, ' ');
  return first.length > 300 ? `${first.slice(0, 297)}...` : first;
}

function detailsText(d: PackageDetails, long: boolean): string {
  const list = (xs: readonly string[]) => (xs.length > 0 ? xs.join(', ') : '<none>');
  const dep = d.deprecated;
  const rows: Array<[string, string]> = [
    ['Name', d.name],
    ['Catalog', d.catalog],
    ['Display name', d.displayName ?? '<none>'],
    [
      'Provider',
      [d.provider?.name, d.provider?.url && `(${d.provider.url})`].filter(Boolean).join(' ') ||
        '<none>',
    ],
    ['Deprecated', dep === undefined ? 'false' : 'true'],
    ['Default channel', d.defaultChannel ?? '<none>'],
    [
      'Head',
      d.head
        ? `${d.head.name}${d.head.version !== undefined ? ` (${d.head.version})` : ''}`
        : '<none>',
    ],
    [
      'Channels',
      list(d.channels.map((c) => `${c.name}${c.deprecated !== undefined ? ' [deprecated]' : ''}`)),
    ],
    ['Install modes', list(d.installModes)],
    ['Min Kube version', d.minKubeVersion ?? '<none>'],
    ['Max OpenShift version', d.maxOpenShiftVersion ?? '<none>'],
    ['Infrastructure features', list(d.infrastructureFeatures)],
    ['Architectures', list(d.archs)],
    ['Operating systems', list(d.oses)],
    ['Capabilities', d.capabilities ?? '<none>'],
    ['Maturity', d.maturity ?? '<none>'],
    ['Categories', list(d.categories)],
    ['Keywords', list(d.keywords)],
    ['Provided APIs', list(d.providedAPIs)],
    ['Links', list(d.links.map((l) => [l.name, l.url].filter(Boolean).join(' ')))],
    [
      'Maintainers',
      list(d.maintainers.map((m) => [m.name, m.email && `<${m.email}>`].filter(Boolean).join(' '))),
    ],
  ];
  const width = Math.max(...rows.map(([k]) => k.length)) + 2;
  let out = rows.map(([k, v]) => `${`${k}:`.padEnd(width)}${v}\n`).join('');
  if (dep?.package !== undefined) out += `${'Package deprecation:'.padEnd(width)}${dep.package}\n`;
  if (dep?.channel !== undefined)
    out += `${'Channel deprecation:'.padEnd(width)}${d.defaultChannel}: ${dep.channel}\n`;
  if (dep?.bundle !== undefined)
    out += `${'Bundle deprecation:'.padEnd(width)}${d.head?.name}: ${dep.bundle}\n`;
  if (!d.csvMetadata)
    out += `${'Note:'.padEnd(width)}the head bundle has no CSV metadata (no olm.csv.metadata, no CSV in olm.bundle.object): provider, install modes and the like are unknown\n`;
  const description = d.description ?? '';
  out += `Description:\n${
    description === ''
      ? '  <none>'
      : (long ? description.trim() : shortDescription(description))
          .split('\n')
          .map((l) => (l === '' ? '' : `  ${l}`))
          .join('\n')
  }\n`;
  return out;
}

async function show(ctx: Ctx, pkg: string): Promise<number> {
  const view = await packageView(ctx, pkg, [SCHEMA_CHANNEL, SCHEMA_BUNDLE, SCHEMA_DEPRECATIONS], {
    wholeHead: true,
  });
  const d = packageDetails(view.catalog, view.pkg, view.channels, view.bundles, view.deprecations);
  if (isDocument(ctx)) printDocument(ctx, d);
  else ctx.io.stdout(detailsText(d, ctx.opts.long));
  return 0;
}

// ---- channels ---------------------------------------------------------------------------

async function channels(ctx: Ctx, pkg: string): Promise<number> {
  const view = await packageView(ctx, pkg, [SCHEMA_CHANNEL, SCHEMA_DEPRECATIONS]);
  const items = view.channels.map((c) => {
    const h = channelHead(c);
    if (h.error) warn(ctx, `channel ${c.name}: ${h.error}`);
    const deprecated = deprecationMessage(view.deprecations, SCHEMA_CHANNEL, c.name);
    return {
      name: c.name,
      package: view.pkg.name,
      catalog: view.catalog,
      head: h.head,
      ...(h.error && { headError: h.error, headCandidates: h.candidates }),
      entries: c.entries.length,
      default: c.name === view.pkg.defaultChannel,
      ...(deprecated !== undefined && { deprecated }),
      ...(view.deprecated !== undefined && { packageDeprecated: view.deprecated }),
    };
  });
  return print(
    ctx,
    ['CHANNEL', 'HEAD', 'ENTRIES', 'DEFAULT', 'DEPRECATED'],
    items.map((i) => [
      i.name,
      i.head ??
        `<${i.headCandidates?.length ? `multiple: ${i.headCandidates.join(',')}` : 'none'}>`,
      String(i.entries),
      String(i.default),
      String(i.deprecated !== undefined),
    ]),
    items,
    `Package ${pkg} has no channels.`,
  );
}

// ---- bundles ----------------------------------------------------------------------------

async function bundles(ctx: Ctx, pkg: string): Promise<number> {
  const view = await packageView(ctx, pkg, [SCHEMA_CHANNEL, SCHEMA_BUNDLE, SCHEMA_DEPRECATIONS]);
  let selected = view.bundles;
  if (ctx.opts.channel !== undefined) {
    const ch = pickChannel(view, ctx.opts.channel);
    const names = new Set(ch.entries.map((e) => e.name));
    selected = selected.filter((b) => names.has(b.name));
  }
  const items = sortBundlesByVersion(selected).map((b) => {
    const deprecated = deprecationMessage(view.deprecations, SCHEMA_BUNDLE, b.name);
    return {
      name: b.name,
      package: view.pkg.name,
      catalog: view.catalog,
      version: bundleVersion(b),
      image: b.image,
      channels: channelsOf(b.name, view.channels),
      provides: bundleGvks(b).map(formatGvk),
      ...(deprecated !== undefined && { deprecated }),
      ...(view.deprecated !== undefined && { packageDeprecated: view.deprecated }),
    };
  });
  return print(
    ctx,
    ['BUNDLE', 'VERSION', 'CHANNELS', 'DEPRECATED', 'IMAGE', 'PROVIDES'],
    items.map((i) => [
      i.name,
      i.version ?? '',
      i.channels.join(','),
      String(i.deprecated !== undefined),
      i.image ?? '',
      i.provides.join(','),
    ]),
    items,
    `No bundles found for package ${pkg}${ctx.opts.channel !== undefined ? ` in channel ${ctx.opts.channel}` : ''}.`,
  );
}

// ---- graph ------------------------------------------------------------------------------

async function graph(ctx: Ctx, pkg: string): Promise<number> {
  const view = await packageView(ctx, pkg, [SCHEMA_CHANNEL, SCHEMA_BUNDLE, SCHEMA_DEPRECATIONS]);
  const ch = chosenChannel(ctx, view);
  const g = upgradeGraph(ch, versionMap(view.bundles), view.deprecations);
  for (const w of g.warnings) warn(ctx, `channel ${ch.name}: ${w}`);
  const channelDeprecated = deprecationMessage(view.deprecations, SCHEMA_CHANNEL, ch.name);
  if (channelDeprecated !== undefined && !isDocument(ctx))
    warn(ctx, `channel ${ch.name} is deprecated: ${channelDeprecated}`);
  const title = `${pkg}/${ch.name} (catalog ${view.catalog})`;
  switch (ctx.opts.output) {
    case 'mermaid':
      ctx.io.stdout(graphMermaid(g, title));
      break;
    case 'dot':
      ctx.io.stdout(graphDot(g, title));
      break;
    case 'json':
    case 'yaml': {
      const doc = {
        package: pkg,
        channel: ch.name,
        catalog: view.catalog,
        ...(view.deprecated !== undefined && { packageDeprecated: view.deprecated }),
        ...(channelDeprecated !== undefined && { channelDeprecated }),
        ...g,
      };
      printDocument(ctx, doc);
      break;
    }
    default:
      ctx.io.stdout(graphText(g, ctx.opts.noHeaders));
  }
  return 0;
}

// ---- upgrades ---------------------------------------------------------------------------

function viaText(c: UpgradeCandidate): string {
  return c.via.map((v) => (v === 'skipRange' ? `skipRange ${c.skipRange ?? ''}` : v)).join(', ');
}

function stepText(s: PathStep): string {
  return `${s.name}${s.version !== undefined ? ` (${s.version})` : ''}${s.deprecated !== undefined ? ' [deprecated]' : ''}`;
}

async function upgrades(ctx: Ctx, pkg: string): Promise<number> {
  const view = await packageView(ctx, pkg, [SCHEMA_CHANNEL, SCHEMA_BUNDLE, SCHEMA_DEPRECATIONS]);
  const ch = chosenChannel(ctx, view);
  const installed = resolveInstalled(view.bundles, ctx.opts.from!, ch);
  const u = upgradesFrom(ch, installed.name, versionMap(view.bundles), view.deprecations);
  for (const w of u.warnings) warn(ctx, `channel ${ch.name}: ${w}`);
  const packageDeprecated = deprecationMessage(view.deprecations, SCHEMA_PACKAGE);
  const channelDeprecated = deprecationMessage(view.deprecations, SCHEMA_CHANNEL, ch.name);
  const doc = {
    package: view.pkg.name,
    channel: ch.name,
    catalog: view.catalog,
    from: u.from,
    items: u.items,
    ...(u.head !== undefined && { head: u.head }),
    path: u.path,
    ...(packageDeprecated !== undefined && { packageDeprecated }),
    ...(channelDeprecated !== undefined && { channelDeprecated }),
    warnings: u.warnings,
  };
  const { noHeaders } = ctx.opts;
  if (isDocument(ctx)) {
    printDocument(ctx, doc);
    return 0;
  }
  if (channelDeprecated !== undefined)
    warn(ctx, `channel ${ch.name} is deprecated: ${channelDeprecated}`);
  if (u.from.deprecated !== undefined)
    warn(ctx, `the installed bundle ${u.from.name} is deprecated: ${u.from.deprecated}`);
  if (u.items.length === 0) {
    const why =
      u.head === installed.name
        ? 'it is the head of the channel'
        : u.head !== undefined
          ? `nothing in the channel replaces, skips or skipRanges it; the head is ${u.head}`
          : 'nothing in the channel replaces, skips or skipRanges it';
    ctx.io.stderr(`No upgrades from ${stepText(u.from)} in channel ${ch.name}: ${why}.\n`);
    return 0;
  }
  ctx.io.stdout(
    formatTable(
      ['BUNDLE', 'VERSION', 'VIA', 'HEAD', 'DEPRECATED'],
      u.items.map((i) => [
        i.name,
        i.version ?? '',
        viaText(i),
        String(i.head),
        String(i.deprecated !== undefined),
      ]),
      { noHeaders },
    ),
  );
  if (!noHeaders) {
    const steps = u.path.length - 1;
    const path =
      u.path.length > 0
        ? `Path to head (${steps} step${steps === 1 ? '' : 's'}): ${u.path.map(stepText).join(' -> ')}`
        : u.head !== undefined
          ? `Path to head: none (the head ${u.head} cannot be reached from ${u.from.name})`
          : 'Path to head: none (the channel has no single head)';
    ctx.io.stdout(`\n${path}\n`);
  }
  return 0;
}

// ---- provides ---------------------------------------------------------------------------

async function provides(ctx: Ctx, arg: string): Promise<number> {
  const gvk = parseGvk(arg);
  if (!gvk)
    throw new UserError(
      `${JSON.stringify(arg)} is not GROUP/VERSION/KIND (e.g. example.com/v1alpha1/ExampleBackup; VERSION/KIND for the core group)`,
      2,
    );
  const { catalog } = ctx.opts;
  // Bundles across catalogs, paginated; only the providers are kept while paging (olm.gvk is
  // in a lean bundle's content; a bundle whose content is omitted whole is kept and fetched).
  const list = await ctx.client.consistentList(
    { schema: SCHEMA_BUNDLE, ...(catalog !== undefined && { catalog }) },
    {
      skipSyncing: true,
      keep: (o) =>
        o.spec.content === undefined ||
        gvkProviders([o.spec.content as unknown as BundleBlob], gvk).length > 0,
    },
  );
  for (const s of list.skipped) warn(ctx, `catalog ${s} is syncing: its bundles are not shown`);
  const found: Array<{ catalog: string; bundle: BundleBlob }> = [];
  const kept = await blobs(ctx, list.items);
  for (const [i, o] of list.items.entries()) {
    const b = kept[i]!;
    if (isBundleBlob(b) && gvkProviders([b], gvk).length > 0)
      found.push({ catalog: o.spec.catalog.name, bundle: b });
  }
  // By package and catalog, newest first within each.
  const ordered = sortProviders(found);
  const items = ordered.map((f) => ({
    package: f.bundle.package,
    catalog: f.catalog,
    bundle: f.bundle.name,
    version: bundleVersion(f.bundle),
    image: f.bundle.image,
  }));
  return print(
    ctx,
    ['PACKAGE', 'CATALOG', 'BUNDLE', 'VERSION'],
    items.map((i) => [i.package, i.catalog, i.bundle, i.version ?? '']),
    items,
    `No bundles provide ${formatGvk(gvk)}.`,
  );
}

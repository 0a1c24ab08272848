// What every `kubectl catalog` command runs with (the client, the output streams, the parsed
// options) and the output helpers they share: tables, documents (-o json|yaml) and warnings.
// The answers come from the client library; this file words them for a terminal. Catalog text
// is hostile input (SPEC §5.2): text for a person goes through util/terminal-text.ts's rule,
// documents escape what JSON and YAML would leave raw.
import { dump } from 'js-yaml';
import type { ClusterCatalog } from '../api/v1/index.js';
import { TYPE_SERVING, findCondition } from '../api/v1/index.js';
import type {
  CatalogClient,
  ChannelBlob,
  PackageFilter,
  PackageView,
  PackageViewOptions,
} from '../client/index.js';
import { PackageNotFoundError, packageView, resolveCatalog, str } from '../client/index.js';
import { CommandError } from '../util/command-error.js';
import { jsonText, terminalLine } from '../util/terminal-text.js';
import { formatTable } from './table.js';

export interface Io {
  stdout: (s: string) => void;
  stderr: (s: string) => void;
  /** Makes the client (tests inject one that counts requests). */
  client?: (kubeconfig: string | undefined) => CatalogClient;
  now?: () => Date;
}

export interface Opts {
  output?: string;
  noHeaders: boolean;
  catalog?: string;
  channel?: string;
  from?: string;
  filter?: PackageFilter;
  long: boolean;
  /** query: --variables (JSON text) and --operation-name. */
  variables?: string;
  operationName?: string;
}

export interface Ctx {
  client: CatalogClient;
  io: Io;
  opts: Opts;
  now: Date;
}

/** The bidi controls, which js-yaml writes raw (it escapes C0, DEL and C1). */
const BIDI = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/u;

/**
 * A document as -o json|yaml prints it. JSON: JSON.stringify's, with DEL, C1 and the bidi
 * controls as `\u0080`-style escapes too (jsonText). YAML: js-yaml's, which writes a string
 * with a control character double-quoted with escapes (`"\e]52;..."`, `"\x9B"`); a document
 * holding a bidi control, which YAML can escape only in a double-quoted string js-yaml does not
 * choose for it, is written in YAML's JSON form (jsonText: JSON is YAML) instead.
 */
export function documentText(output: 'json' | 'yaml', doc: unknown): string {
  if (output === 'json') return `${jsonText(doc)}\n`;
  const yaml = dump(doc, { noRefs: true, lineWidth: -1 });
  return BIDI.test(yaml) ? `${jsonText(doc)}\n` : yaml;
}

/** Prints a document as JSON or YAML (-o json|yaml). */
export function printDocument(ctx: Ctx, doc: unknown): void {
  ctx.io.stdout(documentText(ctx.opts.output === 'json' ? 'json' : 'yaml', doc));
}

/** Prints rows as a table, or `{items}` as JSON or YAML; `empty` on stderr when no rows. */
export function print(
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
export function isDocument(ctx: Ctx): boolean {
  return ctx.opts.output === 'json' || ctx.opts.output === 'yaml';
}

/**
 * `warning: MSG` on stderr, one line: a catalog's message (a deprecation, a channel's problem)
 * cannot end it early, hide it (cursor up, erase) or act on the terminal. A message's trailing
 * newline (a YAML block scalar's) is dropped; others show as `^J`.
 */
export function warn(ctx: Ctx, msg: string): void {
  ctx.io.stderr(`warning: ${terminalLine(msg.trim())}\n`);
}

export function conditionText(c: ClusterCatalog, type: string): string {
  const cond = findCondition(c.status?.conditions, type);
  return cond ? `${cond.status} (${cond.reason})` : 'Unknown';
}

/** The catalog that holds the package: --catalog, else the only one that has it. */
async function catalogOf(ctx: Ctx, pkg: string): Promise<string> {
  if (ctx.opts.catalog !== undefined) return ctx.opts.catalog;
  const found = await resolveCatalog(ctx.client, pkg);
  if ('catalog' in found) return found.catalog;
  if ('ambiguous' in found) {
    const catalogs = found.ambiguous;
    throw new CommandError(
      `package ${JSON.stringify(pkg)} is in ${catalogs.length} catalogs: ${catalogs.join(', ')}; choose one with --catalog, e.g. --catalog ${catalogs[0]}`,
    );
  }
  // Not found: say whether some catalog could not be searched yet.
  const pending = found.notServing.length
    ? `; not Serving yet (so not searched): ${found.notServing.map((c) => `${c.metadata.name} (${conditionText(c, TYPE_SERVING)})`).join(', ')}`
    : '';
  throw new CommandError(
    `package ${JSON.stringify(pkg)} not found in any catalog${pending}; search with: kubectl catalog packages --search ${searchHint(pkg)}`,
  );
}

function searchHint(pkg: string): string {
  const word = pkg.split(/[^A-Za-z0-9]+/).find((w) => w.length >= 3) ?? pkg;
  return /^[A-Za-z0-9._-]+$/.test(word) ? word : JSON.stringify(word);
}

/**
 * The package's view (client/answers.ts) in its catalog; a deprecated package is said on
 * stderr for tables (documents carry it as packageDeprecated).
 */
export async function viewPackage(
  ctx: Ctx,
  pkg: string,
  opts: PackageViewOptions,
): Promise<PackageView> {
  const catalog = await catalogOf(ctx, pkg);
  let view: PackageView;
  try {
    view = await packageView(ctx.client, catalog, pkg, opts);
  } catch (err) {
    if (!(err instanceof PackageNotFoundError)) throw err;
    throw new CommandError(
      `${err.message}; list its packages with: kubectl catalog packages --catalog ${catalog}`,
    );
  }
  if (view.deprecated !== undefined && !isDocument(ctx))
    warn(ctx, `package ${view.pkg.name} is deprecated: ${view.deprecated}`);
  return view;
}

/** The channel --channel names, else the package's default channel. */
export function chosenChannel(ctx: Ctx, view: PackageView): ChannelBlob {
  const name = ctx.opts.channel ?? str(view.pkg.defaultChannel);
  if (name === undefined)
    throw new CommandError(
      `package ${JSON.stringify(view.pkg.name)} has no default channel; choose one with --channel (${view.channels.map((c) => c.name).join(', ')})`,
    );
  return pickChannel(view, name);
}

export function pickChannel(view: PackageView, name: string): ChannelBlob {
  const ch = view.channels.find((c) => c.name === name);
  if (!ch)
    throw new CommandError(
      `package ${JSON.stringify(view.pkg.name)} has no channel ${JSON.stringify(name)}; its channels: ${view.channels.map((c) => c.name).join(', ') || '<none>'}`,
    );
  return ch;
}

/** A command of `kubectl catalog`: how it is used, its flags and outputs, and what it does. */
export interface Command {
  name: string;
  /** Its positional argument ('' when it takes none), named in the usage error. */
  arg: '' | 'PACKAGE' | 'GROUP/VERSION/KIND' | 'GRAPHQL';
  /** The command-scoped flags it accepts (the global ones apply to all). */
  flags: readonly string[];
  /** Flag → the usage error when it is missing. */
  required?: Readonly<Record<string, string>>;
  /** The -o formats it prints. */
  outputs: readonly string[];
  /** Its own help (`kubectl catalog NAME -h`); without one, the general usage. */
  help?: string;
  run(ctx: Ctx, arg: string): Promise<number>;
}

// `kubectl catalog upgrades PACKAGE --from VERSION|BUNDLE`: the bundles an installation can move
// to in one step, and the path to the channel head (client's upgradesFrom).
import type { ChannelBlob, PathStep, UpgradeCandidate, Upgrades } from '../../client/index.js';
import {
  SCHEMA_BUNDLE,
  SCHEMA_CHANNEL,
  SCHEMA_DEPRECATIONS,
  SCHEMA_PACKAGE,
  deprecationMessage,
  resolveInstalled,
  upgradesFrom,
  versionMap,
} from '../../client/index.js';
import type { Command, Ctx } from '../context.js';
import { chosenChannel, isDocument, printDocument, viewPackage, warn } from '../context.js';
import { terminalLine } from '../../util/terminal-text.js';
import { formatTable } from '../table.js';

function viaText(c: UpgradeCandidate): string {
  return c.via.map((v) => (v === 'skipRange' ? `skipRange ${c.skipRange ?? ''}` : v)).join(', ');
}

function stepText(s: PathStep): string {
  return `${s.name}${s.version !== undefined ? ` (${s.version})` : ''}${s.deprecated !== undefined ? ' [deprecated]' : ''}`;
}

/** Why there is no upgrade, said on stderr (exit 0: no upgrade is an answer). */
function noUpgradeText(u: Upgrades, installed: string, ch: ChannelBlob): string {
  const why =
    u.head === installed
      ? 'it is the head of the channel'
      : u.head !== undefined
        ? `nothing in the channel replaces, skips or skipRanges it; the head is ${u.head}`
        : 'nothing in the channel replaces, skips or skipRanges it';
  return `${terminalLine(`No upgrades from ${stepText(u.from)} in channel ${ch.name}: ${why}.`)}\n`;
}

/** The table of candidates and, with headers, the path to the head. */
function upgradesText(u: Upgrades, noHeaders: boolean): string {
  let out = formatTable(
    ['BUNDLE', 'VERSION', 'VIA', 'HEAD', 'DEPRECATED'],
    u.items.map((i) => [
      i.name,
      i.version ?? '',
      viaText(i),
      String(i.head),
      String(i.deprecated !== undefined),
    ]),
    { noHeaders },
  );
  if (!noHeaders) {
    const steps = u.path.length - 1;
    const path =
      u.path.length > 0
        ? `Path to head (${steps} step${steps === 1 ? '' : 's'}): ${u.path.map(stepText).join(' -> ')}`
        : u.head !== undefined
          ? `Path to head: none (the head ${u.head} cannot be reached from ${u.from.name})`
          : 'Path to head: none (the channel has no single head)';
    out += `\n${terminalLine(path)}\n`;
  }
  return out;
}

async function run(ctx: Ctx, pkg: string): Promise<number> {
  const view = await viewPackage(ctx, pkg, {
    schemas: [SCHEMA_CHANNEL, SCHEMA_BUNDLE, SCHEMA_DEPRECATIONS],
  });
  const ch = chosenChannel(ctx, view);
  const installed = resolveInstalled(view.bundles, ctx.opts.from!, ch);
  const u = upgradesFrom(ch, installed.name, versionMap(view.bundles), view.deprecations);
  for (const w of u.warnings) warn(ctx, `channel ${ch.name}: ${w}`);
  const packageDeprecated = deprecationMessage(view.deprecations, SCHEMA_PACKAGE);
  const channelDeprecated = deprecationMessage(view.deprecations, SCHEMA_CHANNEL, ch.name);
  if (isDocument(ctx)) {
    printDocument(ctx, {
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
    });
    return 0;
  }
  if (channelDeprecated !== undefined)
    warn(ctx, `channel ${ch.name} is deprecated: ${channelDeprecated}`);
  if (u.from.deprecated !== undefined)
    warn(ctx, `the installed bundle ${u.from.name} is deprecated: ${u.from.deprecated}`);
  if (u.items.length === 0) ctx.io.stderr(noUpgradeText(u, installed.name, ch));
  else ctx.io.stdout(upgradesText(u, ctx.opts.noHeaders));
  return 0;
}

export const upgrades: Command = {
  name: 'upgrades',
  arg: 'PACKAGE',
  flags: ['catalog', 'channel', 'from'],
  required: { from: 'upgrades needs --from VERSION|BUNDLE (the installed version or bundle name)' },
  outputs: ['json', 'yaml'],
  help: `kubectl catalog upgrades: the bundles an installation can move to in one step, and the path to the channel head

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
  run,
};

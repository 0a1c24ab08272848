// `kubectl catalog show PACKAGE`: what to know before installing a package, on one screen:
// the package with its default channel head's CSV metadata (client's packageDetails).
import type { PackageDetails } from '../../client/index.js';
import {
  SCHEMA_BUNDLE,
  SCHEMA_CHANNEL,
  SCHEMA_DEPRECATIONS,
  packageDetails,
} from '../../client/index.js';
import { terminalLine, terminalText } from '../../util/terminal-text.js';
import type { Command } from '../context.js';
import { isDocument, printDocument, viewPackage } from '../context.js';

/** The description in the short form: its first paragraph, at most 300 characters. */
function shortDescription(d: string): string {
  const first = d
    .trim()
    .split(/\r?\n\s*\r?\n/)[0]!
    .replace(/\s+/g, ' ');
  return first.length > 300 ? `${first.slice(0, 297)}...` : first;
}

/**
 * The view of a package's details: every value is catalog text, so each is one line with its
 * control characters made visible (a message's trailing newline dropped), and the description
 * is indented lines with theirs made visible (tabs kept, CRLF a line break).
 */
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
  const line = (k: string, v: string) => `${k.padEnd(width)}${terminalLine(v.trim())}\n`;
  let out = rows.map(([k, v]) => line(`${k}:`, v)).join('');
  if (dep?.package !== undefined) out += line('Package deprecation:', dep.package);
  if (dep?.channel !== undefined)
    out += line('Channel deprecation:', `${d.defaultChannel}: ${dep.channel}`);
  if (dep?.bundle !== undefined)
    out += line('Bundle deprecation:', `${d.head?.name}: ${dep.bundle}`);
  if (!d.csvMetadata)
    out += `${'Note:'.padEnd(width)}the head bundle has no CSV metadata (no olm.csv.metadata, no CSV in olm.bundle.object): provider, install modes and the like are unknown\n`;
  const description = d.description ?? '';
  out += `Description:\n${
    description === ''
      ? '  <none>'
      : (long ? description.trim() : shortDescription(description))
          .split(/\r?\n/)
          .map((l) => (l === '' ? '' : `  ${terminalText(l)}`))
          .join('\n')
  }\n`;
  return out;
}

export const show: Command = {
  name: 'show',
  arg: 'PACKAGE',
  flags: ['catalog', 'long'],
  outputs: ['json', 'yaml'],
  help: `kubectl catalog show: what to know before installing a package, on one screen

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
  async run(ctx, pkg) {
    const view = await viewPackage(ctx, pkg, {
      schemas: [SCHEMA_CHANNEL, SCHEMA_BUNDLE, SCHEMA_DEPRECATIONS],
      wholeHead: true,
    });
    const d = packageDetails(
      view.catalog,
      view.pkg,
      view.channels,
      view.bundles,
      view.deprecations,
    );
    if (isDocument(ctx)) printDocument(ctx, d);
    else ctx.io.stdout(detailsText(d, ctx.opts.long));
    return 0;
  },
};

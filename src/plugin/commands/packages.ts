// `kubectl catalog packages [FILTERS]`: the packages of the Serving catalogs (client's
// packageRows), narrowed by the compatibility filters, which read the default channels' heads.
import type { InstallMode, PackageFilter, PackageRow } from '../../client/index.js';
import {
  INSTALL_MODES,
  looseVersion,
  matchesPackageFilter,
  needsHead,
  packageRows,
  str,
} from '../../client/index.js';
import { usageError } from '../../util/command-error.js';
import type { Command } from '../context.js';
import { print, warn } from '../context.js';
import { excerpt } from '../table.js';

/** PackageFilter field → its flag. */
export const FILTER_FLAGS: Record<keyof PackageFilter, string> = {
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

/** The filters of `packages` from the flags; invalid values are usage errors. */
export function packageFilter(flag: (f: string) => string | boolean | undefined): PackageFilter {
  const filter: PackageFilter = {};
  for (const [key, name] of Object.entries(FILTER_FLAGS) as Array<[keyof PackageFilter, string]>) {
    const v = flag(name);
    if (typeof v !== 'string') continue;
    if (key === 'installMode' && !INSTALL_MODES.includes(v as InstallMode))
      throw usageError(`--install-mode ${v}: one of ${INSTALL_MODES.join(', ')}`);
    if ((key === 'kubeVersion' || key === 'openshiftVersion') && !looseVersion(v))
      throw usageError(`--${name} ${v}: not a version (e.g. 1.30 or 1.30.2)`);
    (filter as Record<string, string>)[key] = v;
  }
  return filter;
}

/** A row as -o json|yaml prints it: the facts flattened beside the package's own fields. */
function rowDocument(r: PackageRow): Record<string, unknown> {
  const {
    name: _name,
    description: _description,
    hasCsvMetadata,
    ...facts
  } = r.facts ?? { hasCsvMetadata: undefined };
  return {
    name: r.pkg.name,
    catalog: r.catalog,
    defaultChannel: str(r.pkg.defaultChannel),
    channels: r.channels,
    description: str(r.pkg.description),
    ...(r.deprecated !== undefined && { deprecated: r.deprecated }),
    ...(r.facts && { ...facts, csvMetadata: hasCsvMetadata }),
  };
}

export const packages: Command = {
  name: 'packages',
  arg: '',
  flags: ['catalog', ...Object.values(FILTER_FLAGS)],
  outputs: ['json', 'yaml'],
  async run(ctx) {
    const filter = ctx.opts.filter ?? {};
    const { catalog } = ctx.opts;
    const found = await packageRows(ctx.client, {
      ...(catalog !== undefined && { catalog }),
      withHeads: needsHead(filter),
    });
    for (const s of found.skipped) warn(ctx, `catalog ${s} is syncing: its packages are not shown`);
    for (const f of found.failed)
      warn(ctx, `catalog ${f.catalog}: its packages are not shown: ${f.reason}`);
    const rows = found.rows.filter((r) => !r.facts || matchesPackageFilter(r.facts, filter));
    const filters = Object.entries(filter)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => `--${FILTER_FLAGS[k as keyof PackageFilter]} ${String(v)}`);
    return print(
      ctx,
      ['NAME', 'CATALOG', 'DEFAULT CHANNEL', 'CHANNELS', 'DEPRECATED', 'DESCRIPTION'],
      rows.map((r) => [
        r.pkg.name,
        r.catalog,
        str(r.pkg.defaultChannel) ?? '',
        String(r.channels),
        String(r.deprecated !== undefined),
        excerpt(str(r.pkg.description)),
      ]),
      rows.map(rowDocument),
      filters.length > 0
        ? `No packages match ${filters.join(' ')}.`
        : 'No packages found (is any catalog Serving? see: kubectl catalog list).',
    );
  },
};

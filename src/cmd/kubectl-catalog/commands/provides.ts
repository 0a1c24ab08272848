// `kubectl catalog provides GROUP/VERSION/KIND`: the packages and bundles that provide an API.
import type { BundleBlob } from '../../../client/index.js';
import {
  SCHEMA_BUNDLE,
  bundleVersion,
  formatGvk,
  gvkProviders,
  isBundleBlob,
  parseGvk,
  resolverBlob,
  sortProviders,
} from '../../../client/index.js';
import { usageError } from '../../command-error.js';
import type { Command } from '../context.js';
import { print, warn } from '../context.js';

export const provides: Command = {
  name: 'provides',
  arg: 'GROUP/VERSION/KIND',
  flags: ['catalog'],
  outputs: ['json', 'yaml'],
  async run(ctx, arg) {
    const gvk = parseGvk(arg);
    if (!gvk)
      throw usageError(
        `${JSON.stringify(arg)} is not GROUP/VERSION/KIND (e.g. example.com/v1alpha1/ExampleBackup; VERSION/KIND for the core group)`,
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
    const kept = (await ctx.client.resolverContents(list.items)).map(resolverBlob);
    for (const [i, o] of list.items.entries()) {
      const b = kept[i]!;
      if (isBundleBlob(b) && gvkProviders([b], gvk).length > 0)
        found.push({ catalog: o.spec.catalog.name, bundle: b });
    }
    // By package and catalog, newest first within each.
    const items = sortProviders(found).map((f) => ({
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
  },
};

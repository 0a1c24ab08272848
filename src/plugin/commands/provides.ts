// `kubectl catalog provides GROUP/VERSION/KIND`: the packages and bundles that provide an API.
import { bundleVersion, formatGvk, parseGvk } from '../../client/index.js';
import { usageError } from '../../util/command-error.js';
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
    const { providers, skipped, failed } = await ctx.client.providersOf(gvk, {
      ...(catalog !== undefined && { catalog }),
    });
    for (const s of skipped) warn(ctx, `catalog ${s} is syncing: its bundles are not shown`);
    for (const f of failed)
      warn(ctx, `catalog ${f.catalog}: its bundles are not shown: ${f.reason}`);
    // By package and catalog, newest first within each.
    const items = providers.map((f) => ({
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

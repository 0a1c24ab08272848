// `kubectl catalog bundles PACKAGE [--channel CH]`: the package's bundles, newest first, with
// their image, channels and provided APIs.
import {
  SCHEMA_BUNDLE,
  SCHEMA_CHANNEL,
  SCHEMA_DEPRECATIONS,
  bundleGvks,
  bundleVersion,
  channelsOf,
  deprecationMessage,
  formatGvk,
  sortBundlesByVersion,
} from '../../client/index.js';
import type { Command } from '../context.js';
import { pickChannel, print, viewPackage } from '../context.js';

export const bundles: Command = {
  name: 'bundles',
  arg: 'PACKAGE',
  flags: ['catalog', 'channel'],
  outputs: ['json', 'yaml'],
  async run(ctx, pkg) {
    const view = await viewPackage(ctx, pkg, {
      schemas: [SCHEMA_CHANNEL, SCHEMA_BUNDLE, SCHEMA_DEPRECATIONS],
    });
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
  },
};

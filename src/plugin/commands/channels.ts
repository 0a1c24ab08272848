// `kubectl catalog channels PACKAGE`: the package's channels with their head and entry count.
import {
  SCHEMA_CHANNEL,
  SCHEMA_DEPRECATIONS,
  channelHead,
  deprecationMessage,
  str,
} from '../../client/index.js';
import type { Command } from '../context.js';
import { print, viewPackage, warn } from '../context.js';

export const channels: Command = {
  name: 'channels',
  arg: 'PACKAGE',
  flags: ['catalog'],
  outputs: ['json', 'yaml'],
  async run(ctx, pkg) {
    const view = await viewPackage(ctx, pkg, { schemas: [SCHEMA_CHANNEL, SCHEMA_DEPRECATIONS] });
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
        default: c.name === str(view.pkg.defaultChannel),
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
  },
};

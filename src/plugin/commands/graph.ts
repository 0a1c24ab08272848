// `kubectl catalog graph PACKAGE [--channel CH] [-o text|mermaid|dot|json|yaml]`: the upgrade
// graph of a channel (default: the package's default channel).
import {
  SCHEMA_BUNDLE,
  SCHEMA_CHANNEL,
  SCHEMA_DEPRECATIONS,
  deprecationMessage,
  upgradeGraph,
  versionMap,
} from '../../client/index.js';
import type { Command } from '../context.js';
import { chosenChannel, isDocument, printDocument, viewPackage, warn } from '../context.js';
import { graphDot, graphMermaid, graphText } from '../graph-format.js';

export const graph: Command = {
  name: 'graph',
  arg: 'PACKAGE',
  flags: ['catalog', 'channel'],
  outputs: ['text', 'mermaid', 'dot', 'json', 'yaml'],
  async run(ctx, pkg) {
    const view = await viewPackage(ctx, pkg, {
      schemas: [SCHEMA_CHANNEL, SCHEMA_BUNDLE, SCHEMA_DEPRECATIONS],
    });
    const ch = chosenChannel(ctx, view);
    const g = upgradeGraph(ch, versionMap(view.bundles), view.deprecations);
    for (const w of g.warnings) warn(ctx, `channel ${ch.name}: ${w}`);
    const channelDeprecated = deprecationMessage(view.deprecations, SCHEMA_CHANNEL, ch.name);
    if (channelDeprecated !== undefined && !isDocument(ctx))
      warn(ctx, `channel ${ch.name} is deprecated: ${channelDeprecated}`);
    const title = `${pkg}/${ch.name} (catalog ${view.catalog})`;
    if (ctx.opts.output === 'mermaid') ctx.io.stdout(graphMermaid(g, title));
    else if (ctx.opts.output === 'dot') ctx.io.stdout(graphDot(g, title));
    else if (!isDocument(ctx)) ctx.io.stdout(graphText(g, ctx.opts.noHeaders));
    else
      printDocument(ctx, {
        package: pkg,
        channel: ch.name,
        catalog: view.catalog,
        ...(view.deprecated !== undefined && { packageDeprecated: view.deprecated }),
        ...(channelDeprecated !== undefined && { channelDeprecated }),
        ...g,
      });
    return 0;
  },
};

// `kubectl catalog list`: the ClusterCatalogs and their state.
import { TYPE_PROGRESSING, TYPE_SERVING, findCondition } from '../../api/v1/index.js';
import type { Command } from '../context.js';
import { conditionText, print } from '../context.js';
import { age, shortDigest } from '../table.js';

export const list: Command = {
  name: 'list',
  arg: '',
  flags: [],
  outputs: ['json', 'yaml'],
  async run(ctx) {
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
  },
};

// TEMPORARY (replaced when src/server lands): URLs only.
import type { ContentPublisher } from '../controllers/clustercatalog/reconcile.js';

export async function contentPublisher(opts: {
  dir: string;
  serverUrl: string;
  listen: { host: string; port: number };
}): Promise<ContentPublisher & { close(): Promise<void> }> {
  const base = (c: string) => `${opts.serverUrl.replace(/\/$/, '')}/catalogs/${c}`;
  return {
    baseUrl: base,
    blobUrl: (c, b) => {
      const q = new URLSearchParams({ schema: b.schema });
      if (b.package !== undefined) q.set('package', b.package);
      if (b.name !== undefined) q.set('name', b.name);
      return `${base(c)}/api/v1/metas?${q.toString()}`;
    },
    publish: async () => {},
    remove: async () => {},
    close: async () => {},
  };
}

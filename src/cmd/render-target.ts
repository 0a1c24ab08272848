// The sync target `catalogd render` scans (and `render --cost` measures): the controller's,
// from the render options.
import type { ContentProfile, ObjectView } from '../api/v1/index.js';
import { DEFAULT_MAX_OBJECT_BYTES } from '../fbc/index.js';
import { blobUrl, catalogBaseUrl } from '../server/index.js';
import type { SyncTarget } from '../sync/index.js';

export type Output = 'yaml' | 'json';

/** The controller's --server-url when none is given (its default --server-addr, :8090). */
export const DEFAULT_SERVER_URL = 'http://127.0.0.1:8090';

export interface RenderOptions {
  catalog: string;
  output: Output;
  /** The controller's --server-url (content URLs of objects whose content is omitted). */
  serverUrl?: string;
  /** The controller's --max-object-bytes. */
  maxObjectBytes?: number;
  /** The catalog's content profile (the controller's flag or the catalog's annotation). */
  contentProfile?: ContentProfile;
  /** served: the objects under the served view's apiVersion (the same objects otherwise). */
  objectView?: ObjectView;
}

/**
 * A sync target like the controller's. The owner's uid is a placeholder of a real uid's length:
 * the owner reference counts towards an object's size (whether its content is omitted), and is
 * then left out of the printed object.
 */
export function renderTarget(dir: string, opts: RenderOptions): SyncTarget {
  const base = catalogBaseUrl(opts.serverUrl ?? DEFAULT_SERVER_URL, opts.catalog);
  return {
    catalog: { name: opts.catalog, uid: '00000000-0000-0000-0000-000000000000' },
    dir,
    maxObjectBytes: opts.maxObjectBytes ?? DEFAULT_MAX_OBJECT_BYTES,
    contentUrl: (blob) => blobUrl(base, blob),
    ...(opts.contentProfile && { contentProfile: opts.contentProfile }),
  };
}

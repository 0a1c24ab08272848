// The CatalogMetadata writer of the served view (`--object-view=served`): the objects are not
// stored in the apiserver (the CatalogMetadata CRD is not even installed there); the controller's
// served API answers them from the revision each replica serves. The sync still scans and plans
// the catalog (every object built and validated, objectCount and the content hash as in the CRD
// mode), against no existing object, and each planned write is a no-op: the plan is what the
// served view shows once the revision is served.
import type { CatalogMetadataWriter } from './writer-port.js';

export function servedViewWriter(): CatalogMetadataWriter {
  return {
    // No object is stored: an empty list.
    async *listExisting() {},
    create: () => Promise.resolve(),
    update: () => Promise.resolve(),
    delete: () => Promise.resolve(),
  };
}

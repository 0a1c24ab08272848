// The metadata of an object as the apiserver's metadata-only answers carry it, in either
// encoding: resource.ts's lists and watches, and metadata-protobuf.ts's decoded events.

/** Metadata of any object, as returned by metadata-only (PartialObjectMetadata) requests. */
export interface ObjectMetadata {
  apiVersion?: string;
  kind?: string;
  metadata: {
    name: string;
    generateName?: string;
    namespace?: string;
    uid?: string;
    resourceVersion?: string;
    generation?: number;
    creationTimestamp?: string;
    deletionTimestamp?: string;
    deletionGracePeriodSeconds?: number;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    ownerReferences?: Array<{
      apiVersion: string;
      kind: string;
      name: string;
      uid: string;
      controller?: boolean;
      blockOwnerDeletion?: boolean;
    }>;
    finalizers?: string[];
    managedFields?: Array<{
      manager?: string;
      operation?: string;
      apiVersion?: string;
      time?: string;
      fieldsType?: string;
      fieldsV1?: Record<string, unknown>;
      subresource?: string;
    }>;
  };
}

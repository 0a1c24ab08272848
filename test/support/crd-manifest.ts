// A CustomResourceDefinition of one served and stored version v1, as the tests and the catalog
// generator need them: a smoke CRD, a bundle's CRD, a generated catalog's CRDs.

/** Accepts any object: no structural schema to keep. */
export const PRESERVE_UNKNOWN_FIELDS = {
  type: 'object',
  'x-kubernetes-preserve-unknown-fields': true,
} as const;

export interface CrdShape {
  group: string;
  kind: string;
  /** Default: the kind in lower case with an `s`. */
  plural?: string;
  scope: 'Namespaced' | 'Cluster';
  /** v1's openAPIV3Schema (default PRESERVE_UNKNOWN_FIELDS). */
  schema?: object;
  annotations?: Record<string, string>;
}

export function crdManifest(c: CrdShape): Record<string, unknown> {
  const plural = c.plural ?? `${c.kind.toLowerCase()}s`;
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: {
      name: `${plural}.${c.group}`,
      ...(c.annotations && { annotations: c.annotations }),
    },
    spec: {
      group: c.group,
      // This key order is the generated catalogs' bytes (test/support/fbcgen.ts): keep it.
      names: {
        kind: c.kind,
        plural,
        singular: c.kind.toLowerCase(),
        listKind: `${c.kind}List`,
      },
      scope: c.scope,
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          schema: { openAPIV3Schema: c.schema ?? PRESERVE_UNKNOWN_FIELDS },
        },
      ],
    },
  };
}

// The only module that talks to the Kubernetes API (and the only importer of @kubernetes/client-node,
// which it loads only for exec and auth-provider users: see kubeconfig.ts).
export * from './client.js';
export type * from './request-options.js';
export * from './kubeconfig.js';
export * from './errors.js';
export * from './resource.js';
export * from './lease.js';
export * from './events.js';
export * from './pull-secrets.js';
export * from './access-review.js';

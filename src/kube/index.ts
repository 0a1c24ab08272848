// The only module that talks to the Kubernetes API (and imports @kubernetes/client-node).
export * from './client.js';
export * from './errors.js';
export * from './resource.js';
export * from './lease.js';
export * from './events.js';
export * from './pull-secrets.js';
export * from './catalogmetadata.js';

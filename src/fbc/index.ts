// FBC: parse file-based catalogs, canonical blobs and hashes, object identity (docs/fbc.md).
// The canonical form and hashes are defined in src/api (the client verifies what the controller
// wrote with the same function); re-exported here for the controller's side.
export * from '../api/v1/canonical.js';
export * from './errors.js';
export * from './identity.js';
export * from './meta.js';
export * from './parse.js';
export * from './walk.js';
export * from './catalog.js';
export * from './objects.js';
export * from './lean.js';

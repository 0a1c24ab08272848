// FBC: parse file-based catalogs, canonical blobs and hashes, object identity (docs/fbc.md).
export * from './errors.js';
export * from './canonical.js';
export * from './identity.js';
export * from './meta.js';
export * from './parse.js';
export * from './walk.js';
export * from './catalog.js';
export * from './objects.js';
export * from './lean.js';

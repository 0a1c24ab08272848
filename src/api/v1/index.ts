export * from './group.js';
export * from './catalogmetadata.js';
export * from './clustercatalog.js';
export * from './conditions.js';
export * from './imageref.js';
export * from './metadatalabel.js';
export * from './identity.js';
export * from './canonical.js';

export * from './group.js';
export * from './catalogmetadata.js';

export * from './plan.js';
export * from './engine.js';
export * from './writer-port.js';
export * from './drift.js';
export * from './catalogmetadata-writer.js';
export * from './admission-refusals.js';
export * from './target-key.js';
export * from './plan-error.js';

export * from './plan.js';
export * from './engine.js';

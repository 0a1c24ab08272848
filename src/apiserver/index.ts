// The served API's resource handlers (docs/served.md): what the setup mounts
// behind the front (src/apiserver/setup/ imports createServedApi from here).
export { createServedApi } from './served-api.js';
export type { ServedApiOptions } from './served-api.js';
export * from './ports.js';

// The served API's front: listener, requestheader authentication, delegated authorization,
// request parsing (docs/served-security.md). What the setup (src/apiserver/setup) uses.
export { startApiFront } from './front.js';
export type { ApiFront, ApiFrontOptions, Authorizer, FrontLog } from './front.js';
export { RequestHeaderAuthenticator } from './requestheader.js';
export type { RequestHeaderConfig } from './requestheader.js';
export { AUTHENTICATION_CONFIGMAP, requestHeaderConfigFromData } from './requestheader-config.js';

// The served API's front: listener, requestheader authentication, delegated authorization,
// request parsing (docs/served-security.md).
export { HEALTH_PATHS, accessRequestOf, startApiFront } from './front.js';
export type { ApiFront, ApiFrontOptions, Authorizer, FrontLog } from './front.js';
export { requestInfo } from './request-info.js';
export { RequestHeaderAuthenticator, RequestHeaderConfigError } from './requestheader.js';
export type { RequestHeaderConfig } from './requestheader.js';
export { AUTHENTICATION_CONFIGMAP, requestHeaderConfigFromData } from './requestheader-config.js';

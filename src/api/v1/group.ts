/** API group and version of every resource this project serves. */
export const GROUP = 'olm.operatorframework.io';
export const VERSION = 'v1';
export const API_VERSION = `${GROUP}/${VERSION}`;

// Blob identity → object name and label values: defined in src/api (the client library computes
// the same values without loading the FBC parser); re-exported here for the controller's side.
export * from '../api/v1/identity.js';

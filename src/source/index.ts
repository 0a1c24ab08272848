// The source: pulling catalog images from OCI registries into a digest-keyed cache, and pushing
// catalog directories as images. See docs/source.md.
export { DigestCache, type CacheEntry, type CacheMeta } from './cache.js';
export { type AddressClass, type Resolver } from './destinations.js';
export { newCounters, snapshot, type SourceCounters } from './counters.js';
export {
  findCredentials,
  noPullSecrets,
  parseDockerConfigJSON,
  type Credentials,
  type DockerConfigJSON,
  type PullSecretSource,
} from './docker-config.js';
export {
  findSourceError,
  isRetryable,
  isTerminal,
  SourceError,
  type SourceErrorCode,
} from './errors.js';
export { defaultMinimumRate, NodeHttpClient, type HttpClient, type MinimumRate } from './http.js';
export { CONFIGS_LABEL, DEFAULT_CONFIGS_DIR } from './labels.js';
export { defaultPlatform, formatPlatform, parsePlatform, type Platform } from './manifest.js';
export {
  DEFAULT_MAX_CACHE_BYTES,
  ImagePuller,
  type ImagePullerOptions,
  type Puller,
  type PullOptions,
  type PullResult,
} from './puller.js';
export { pushCatalog, type PushOptions } from './pusher.js';
export { parseReference, formatReference, withDigest, type ImageReference } from './reference.js';
export {
  emptyRegistriesConfig,
  parseRegistriesConfig,
  type RegistriesConfig,
} from './registries-conf.js';
export { defaultRetryPolicy, type RetryClock, type RetryPolicy } from './retry.js';
export { defaultUnpackLimits, type UnpackLimits } from './unpack.js';
export {
  dockerConfigFromSecret,
  DOCKER_CONFIG_JSON_SECRET_TYPE,
  pullerOptionsFromFlags,
  type SecretLike,
  type SourceFlags,
} from './config.js';
export { registerSourceMetrics } from './metrics.js';

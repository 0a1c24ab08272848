// Signed catalogs: the containers-policy.json(5) policy, cosign signatures found and verified on
// the resolved digest before anything of the image is fetched, and signing what `catalogd push`
// pushes. See docs/source.md, "Signatures".
export { loadSigningKey, publicKeyKind, signMessage, verifySignature } from './keys.js';
export {
  needsSignatures,
  parseSignaturePolicy,
  PolicyError,
  requirementsFor,
  type Requirement,
  type SignaturePolicy,
  type SignedIdentity,
} from './policy.js';
export { PolicyFile, type PolicyReloadHooks } from './policy-file.js';
export { registerSignatureMetrics } from './metrics.js';
export { signatureChecks, type SignatureChecks } from './setup.js';
export { pushSignature } from './sign.js';
export {
  defaultSignatureLimits,
  SignatureRejected,
  SignatureVerifier,
  verificationResults,
  type SignatureLimits,
  type SignatureSource,
  type VerificationResult,
} from './verifier.js';

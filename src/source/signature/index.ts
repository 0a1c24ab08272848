// Signed catalogs: the containers-policy.json(5) policy, cosign signatures found and verified on
// the resolved digest before anything of the image is fetched, and signing what `catalogd push`
// pushes. See docs/source.md, "Signatures".
export { loadSigningKey } from './keys.js';
export { PolicyError } from './policy.js';
export { signatureChecks, type SignatureChecks } from './setup.js';

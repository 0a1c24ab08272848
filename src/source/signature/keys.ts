// Keys and raw signatures, over node:crypto: the public key kinds cosign and containers/image
// accept (ECDSA P-256/P-384/P-521, RSA, Ed25519), and signing/verifying as cosign does (SHA-256
// for ECDSA and RSA PKCS#1 v1.5, with the ECDSA signature DER-encoded; Ed25519 over the message).
import {
  createPrivateKey,
  sign as cryptoSign,
  verify as cryptoVerify,
  type KeyObject,
} from 'node:crypto';

export type KeyKind = 'ecdsa' | 'rsa' | 'ed25519';

const curves = new Set(['prime256v1', 'secp384r1', 'secp521r1']);

/** The key's kind, or undefined when it is not one this project verifies with. */
export function publicKeyKind(key: KeyObject): KeyKind | undefined {
  switch (key.asymmetricKeyType) {
    case 'ec':
      return curves.has(key.asymmetricKeyDetails?.namedCurve ?? '') ? 'ecdsa' : undefined;
    case 'rsa':
      return 'rsa';
    case 'ed25519':
      return 'ed25519';
    default:
      return undefined;
  }
}

/** Whether sig is a signature of message by key; never throws (malformed input is false). */
export function verifySignature(key: KeyObject, message: Buffer, sig: Buffer): boolean {
  try {
    const alg = key.asymmetricKeyType === 'ed25519' ? null : 'sha256';
    return cryptoVerify(alg, message, key, sig);
  } catch {
    return false;
  }
}

/** Signs message with a private key as cosign does (see verifySignature). */
export function signMessage(key: KeyObject, message: Buffer): Buffer {
  const alg = key.asymmetricKeyType === 'ed25519' ? null : 'sha256';
  return cryptoSign(alg, message, key);
}

/**
 * A PEM private key for `catalogd push --sign-key`: PKCS#8 (`PRIVATE KEY`), SEC1
 * (`EC PRIVATE KEY`) or PKCS#1 (`RSA PRIVATE KEY`) of a supported kind. cosign's own encrypted
 * `cosign.key` (`ENCRYPTED SIGSTORE PRIVATE KEY`) is not read: its secretbox cipher is not in
 * node:crypto (export the key with `cosign` or generate one with openssl, see docs/source.md).
 */
export function loadSigningKey(pem: Buffer | string, what: string): KeyObject {
  const text = pem.toString();
  if (
    text.includes('ENCRYPTED SIGSTORE PRIVATE KEY') ||
    text.includes('ENCRYPTED COSIGN PRIVATE KEY')
  )
    throw new Error(
      `${what}: cosign's encrypted key format is not supported; use a PEM PKCS#8 private key ` +
        '(e.g. openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256)',
    );
  let key: KeyObject;
  try {
    key = createPrivateKey(pem);
  } catch {
    throw new Error(`${what}: not an unencrypted PEM private key`);
  }
  if (!publicKeyKind(key))
    throw new Error(`${what}: unsupported key type (want ECDSA P-256/P-384/P-521, RSA, Ed25519)`);
  return key;
}

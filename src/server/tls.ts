// The content server's certificate (SPEC §4: HTTPS as upstream serves it): a PEM certificate
// (chain) and key read from files, checked before they are served. A pair that cannot serve (a
// key of another certificate, expired, not yet valid, not PEM) is a TlsPairError with a one-line
// message, so that a start fails with it and a reload keeps the previous pair and reports it.
import { X509Certificate, createHash, createPrivateKey } from 'node:crypto';
import { readFile as fsReadFile } from 'node:fs/promises';
import type { SecureContextOptions } from 'node:tls';

export type ReadFile = (path: string) => Promise<Buffer>;

export interface TlsFiles {
  certFile: string;
  keyFile: string;
}

/** A certificate and its key, checked to serve together at `checkedAt`. */
export interface ServingPair {
  cert: Buffer;
  key: Buffer;
  /** The leaf certificate's serial number (hex, upper case, as node prints it). */
  serial: string;
  notAfter: Date;
  /** sha256 of both files' bytes: what a reload compares. */
  fingerprint: string;
}

export class TlsPairError extends Error {
  override name = 'TlsPairError';
}

/**
 * What the server negotiates: TLS 1.2 at least, and for TLS 1.2 only ECDHE key exchange with
 * AEAD ciphers (Go's crypto/tls defaults, which operator-controller uses, are a superset of
 * these); TLS 1.3's suites are all AEAD and are left at node's defaults.
 */
export const TLS_MIN_VERSION = 'TLSv1.2';
export const TLS12_CIPHERS = [
  'ECDHE-ECDSA-AES128-GCM-SHA256',
  'ECDHE-RSA-AES128-GCM-SHA256',
  'ECDHE-ECDSA-AES256-GCM-SHA384',
  'ECDHE-RSA-AES256-GCM-SHA384',
  'ECDHE-ECDSA-CHACHA20-POLY1305',
  'ECDHE-RSA-CHACHA20-POLY1305',
].join(':');

/** The options of tls.createSecureContext / https.createServer for a pair. */
export function secureContextOptions(
  pair: Pick<ServingPair, 'cert' | 'key'>,
): SecureContextOptions {
  return {
    cert: pair.cert,
    key: pair.key,
    minVersion: TLS_MIN_VERSION,
    ciphers: TLS12_CIPHERS,
    honorCipherOrder: true,
  };
}

export function pairFingerprint(cert: Buffer, key: Buffer): string {
  return createHash('sha256').update(cert).update('\0').update(key).digest('hex');
}

async function readPem(flag: string, file: string, readFile: ReadFile): Promise<Buffer> {
  try {
    return await readFile(file);
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    throw new TlsPairError(
      `--${flag} ${file}: cannot read it${typeof code === 'string' ? ` (${code})` : ''}`,
    );
  }
}

/** Reads both files (no checks). */
export async function readPairFiles(
  files: TlsFiles,
  readFile: ReadFile = fsReadFile,
): Promise<{ cert: Buffer; key: Buffer }> {
  return {
    cert: await readPem('tls-cert-file', files.certFile, readFile),
    key: await readPem('tls-key-file', files.keyFile, readFile),
  };
}

/** Checks that the bytes are a certificate and its key, valid at `now`. No I/O. */
export function checkPair(files: TlsFiles, cert: Buffer, key: Buffer, now: Date): ServingPair {
  let x509: X509Certificate;
  try {
    x509 = new X509Certificate(cert);
  } catch {
    throw new TlsPairError(`--tls-cert-file ${files.certFile}: not a PEM certificate`);
  }
  let privateKey;
  try {
    privateKey = createPrivateKey(key);
  } catch {
    throw new TlsPairError(`--tls-key-file ${files.keyFile}: not a PEM private key`);
  }
  if (!x509.checkPrivateKey(privateKey))
    throw new TlsPairError(
      `--tls-key-file ${files.keyFile} is not the key of the certificate in --tls-cert-file ${files.certFile}`,
    );
  const notBefore = new Date(x509.validFrom);
  const notAfter = new Date(x509.validTo);
  if (now.getTime() > notAfter.getTime())
    throw new TlsPairError(
      `--tls-cert-file ${files.certFile}: the certificate (serial ${x509.serialNumber}) expired at ${notAfter.toISOString()}`,
    );
  if (now.getTime() < notBefore.getTime())
    throw new TlsPairError(
      `--tls-cert-file ${files.certFile}: the certificate (serial ${x509.serialNumber}) is not valid before ${notBefore.toISOString()}`,
    );
  return {
    cert,
    key,
    serial: x509.serialNumber,
    notAfter,
    fingerprint: pairFingerprint(cert, key),
  };
}

/** Reads and checks a pair; a TlsPairError says what is wrong in one line. */
export async function loadServingPair(
  files: TlsFiles,
  now: Date,
  readFile: ReadFile = fsReadFile,
): Promise<ServingPair> {
  const { cert, key } = await readPairFiles(files, readFile);
  return checkPair(files, cert, key, now);
}

// The controller's signature verification, from `--signature-policy FILE`: the policy file (read
// now, re-read on an interval), the verifier the puller calls, and their metrics.
import type { Registry } from 'prom-client';
import { registerSignatureMetrics } from './metrics.js';
import { PolicyFile } from './policy-file.js';
import { SignatureVerifier } from './verifier.js';

export interface SignatureChecks {
  file: PolicyFile;
  verifier: SignatureVerifier;
}

/** Reads the policy (throws PolicyError with a message for the user) and registers the metrics. */
export async function signatureChecks(path: string, registry: Registry): Promise<SignatureChecks> {
  const file = await PolicyFile.open(path);
  const verifier = new SignatureVerifier(() => file.current());
  registerSignatureMetrics(registry, verifier, file);
  return { file, verifier };
}

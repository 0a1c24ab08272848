// The controller's signature verification, from `--signature-policy FILE`: the policy file (read
// now, re-read on an interval), the verifier the puller calls, and their metrics.
import type { Registry } from 'prom-client';
import type { Clock } from '../../util/clock.js';
import { registerSignatureMetrics } from './metrics.js';
import { PolicyFile, type PolicyReloadHooks } from './policy-file.js';
import { SignatureVerifier } from './verifier.js';

export interface SignatureChecks {
  file: PolicyFile;
  verifier: SignatureVerifier;
  /** Re-reads the file every intervalMs; the returned function stops. */
  watch(clock: Pick<Clock, 'setTimer'>, intervalMs: number, hooks: PolicyReloadHooks): () => void;
}

/** Reads the policy (throws PolicyError with a message for the user) and registers the metrics. */
export async function signatureChecks(path: string, registry: Registry): Promise<SignatureChecks> {
  const file = await PolicyFile.open(path);
  const verifier = new SignatureVerifier(() => file.current());
  registerSignatureMetrics(registry, verifier, file);
  return { file, verifier, watch: (clock, ms, hooks) => file.watch(clock, ms, hooks) };
}

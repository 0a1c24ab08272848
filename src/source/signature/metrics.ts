// Prometheus view of signature verification, read from the verifier and the policy file at
// scrape time.
import { Counter, type Registry } from 'prom-client';
import type { PolicyFile } from './policy-file.js';
import { verificationResults, type SignatureVerifier } from './verifier.js';

export function registerSignatureMetrics(
  registry: Registry,
  verifier: SignatureVerifier,
  policy: PolicyFile,
): void {
  new Counter({
    name: 'catalogd_signature_verifications_total',
    help: `Signature policy decisions on resolved digests, by result (${verificationResults.join(', ')})`,
    labelNames: ['result'],
    registers: [registry],
    collect() {
      this.reset();
      for (const r of verificationResults) this.inc({ result: r }, verifier.counts[r]);
    },
  });
  new Counter({
    name: 'catalogd_signature_policy_reloads_total',
    help: 'Changes of the --signature-policy file, by result (applied, failed: the old policy stays)',
    labelNames: ['result'],
    registers: [registry],
    collect() {
      this.reset();
      this.inc({ result: 'applied' }, policy.reloads.applied);
      this.inc({ result: 'failed' }, policy.reloads.failed);
    },
  });
}

// A real admission failure for e2e tests: a ValidatingAdmissionPolicy (and its binding) that
// refuses CatalogMetadata creates and updates matching a CEL expression, and a wait until the
// apiserver applies it (policies take effect asynchronously).
import { kubectl } from './kubectl.js';
import { uniqueName } from './names.js';
import { pollUntil } from './poll.js';

/** The policy and its binding, as a List for `kubectl apply|delete -f -`. */
export function refusingPolicy(name: string, expression: string, message: string): string {
  const items = [
    {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingAdmissionPolicy',
      metadata: { name },
      spec: {
        failurePolicy: 'Fail',
        matchConstraints: {
          resourceRules: [
            {
              apiGroups: ['olm.operatorframework.io'],
              apiVersions: ['v1'],
              operations: ['CREATE', 'UPDATE'],
              resources: ['catalogmetadata'],
            },
          ],
        },
        validations: [{ expression, message }],
      },
    },
    {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingAdmissionPolicyBinding',
      metadata: { name },
      spec: { policyName: name, validationActions: ['Deny'] },
    },
  ];
  return JSON.stringify({ apiVersion: 'v1', kind: 'List', items });
}

/** Waits until a CatalogMetadata of `catalog` with these labels is refused (server dry-run). */
export async function waitUntilRefused(
  catalog: string,
  labels: Record<string, string> = {},
  schema = 'olm.package',
): Promise<void> {
  const probe = JSON.stringify({
    apiVersion: 'olm.operatorframework.io/v1',
    kind: 'CatalogMetadata',
    metadata: { name: uniqueName('probe'), labels: { catalog, ...labels } },
    spec: { catalog: { name: catalog }, schema, content: {} },
  });
  await pollUntil(
    async () => (await kubectl(['create', '--dry-run=server', '-f', '-'], probe)).code !== 0,
    { timeoutMs: 30_000, what: 'the admission policy to take effect' },
  );
}

// The MutatingAdmissionPolicy of config/admission (part of config/default) sets the label
// olm.operatorframework.io/metadata.name=<metadata.name> on ClusterCatalog create and update, as
// upstream catalogd's mutating webhook does, against the real local apiserver (1.36): a server
// dry-run of a catalog without the label or with a wrong one shows the right one, and so do a
// real create and an update that changes the label. No controller runs here: what is seen is
// admission's work alone. The policy is deleted at the end, and the test waits until the
// apiserver no longer applies it, so that the other e2e tests see a cluster without it.
import { expect } from 'chai';
import path from 'node:path';
import { dump, load } from 'js-yaml';
import { LABEL_METADATA_NAME } from '../../src/api/v1/index.js';
import { installCrds } from '../support/catalogs.js';
import { repoRoot } from '../support/cluster.js';
import { kubectl, kubectlOk } from '../support/kubectl.js';
import { uniqueName } from '../support/names.js';
import { pollUntil } from '../support/poll.js';

const admissionDir = path.join(repoRoot, 'config', 'admission');
// Loading a new policy into the apiserver's admission chain is asynchronous.
const POLICY_LOAD_TIMEOUT_MS = 60_000;

interface CatalogManifest {
  metadata: { name?: string; generateName?: string; labels?: Record<string, string> };
}

function catalog(metadata: CatalogManifest['metadata']): string {
  return dump({
    apiVersion: 'olm.operatorframework.io/v1',
    kind: 'ClusterCatalog',
    metadata,
    // Never pulled: no controller runs in this file.
    spec: { source: { type: 'Image', image: { ref: 'registry.invalid/e2e/admission:v1' } } },
  });
}

/** The catalog as the apiserver would store it (`kubectl apply --dry-run=server -o yaml`). */
async function dryRunApply(manifest: string): Promise<CatalogManifest> {
  return load(
    await kubectlOk(['apply', '--dry-run=server', '-o', 'yaml', '-f', '-'], manifest),
  ) as CatalogManifest;
}

/** Whether the apiserver currently labels an unlabelled catalog at admission. */
async function policyInEffect(): Promise<boolean> {
  const name = uniqueName('admission-probe');
  const stored = await dryRunApply(catalog({ name }));
  return stored.metadata.labels?.[LABEL_METADATA_NAME] === name;
}

describe('admission: the metadata.name label policy (config/admission)', function () {
  const created: string[] = [];

  before(async function () {
    this.timeout(POLICY_LOAD_TIMEOUT_MS + 60_000);
    await installCrds();
    await kubectlOk(['apply', '--server-side', '-k', admissionDir]);
    await pollUntil(async () => policyInEffect(), {
      timeoutMs: POLICY_LOAD_TIMEOUT_MS,
      what: 'the MutatingAdmissionPolicy to label catalogs at admission',
    });
  });

  after(async function () {
    this.timeout(POLICY_LOAD_TIMEOUT_MS + 60_000);
    for (const name of created) {
      await kubectl(['delete', 'clustercatalog', name, '--ignore-not-found', '--wait=false']);
    }
    await kubectlOk(['delete', '-k', admissionDir, '--ignore-not-found']);
    await pollUntil(async () => !(await policyInEffect()), {
      timeoutMs: POLICY_LOAD_TIMEOUT_MS,
      what: 'the deleted MutatingAdmissionPolicy to stop labelling catalogs',
    });
  });

  it('a server dry-run of a catalog without labels shows the label', async () => {
    const name = uniqueName('admission-nolabel');
    const stored = await dryRunApply(catalog({ name }));
    expect(stored.metadata.labels).to.deep.equal({ [LABEL_METADATA_NAME]: name });
  });

  it('a server dry-run of a catalog with a wrong label shows the right one, other labels kept', async () => {
    const name = uniqueName('admission-wrong');
    const stored = await dryRunApply(
      catalog({ name, labels: { [LABEL_METADATA_NAME]: 'someone-else', team: 'a' } }),
    );
    expect(stored.metadata.labels).to.deep.equal({ [LABEL_METADATA_NAME]: name, team: 'a' });
  });

  it('a real create is stored labelled, and an update that changes the label is corrected', async () => {
    const name = uniqueName('admission-create');
    created.push(name);
    await kubectlOk(['create', '-f', '-'], catalog({ name }));
    const labelOf = async () =>
      kubectlOk([
        'get',
        'clustercatalog',
        name,
        '-o',
        `jsonpath={.metadata.labels.${LABEL_METADATA_NAME.replace(/\./g, '\\.')}}`,
      ]);
    expect(await labelOf()).to.equal(name);

    await kubectlOk([
      'label',
      'clustercatalog',
      name,
      `${LABEL_METADATA_NAME}=wrong`,
      '--overwrite',
    ]);
    expect(await labelOf()).to.equal(name);
    await kubectlOk(['label', 'clustercatalog', name, `${LABEL_METADATA_NAME}-`]);
    expect(await labelOf()).to.equal(name);
  });

  it('a create with generateName is admitted unlabelled (no name yet; the controller labels it)', async () => {
    const stored = load(
      await kubectlOk(
        ['create', '--dry-run=server', '-o', 'yaml', '-f', '-'],
        catalog({ generateName: 'admission-generated-' }),
      ),
    ) as CatalogManifest;
    expect(stored.metadata.name).to.match(/^admission-generated-/);
    expect(stored.metadata.labels?.[LABEL_METADATA_NAME]).to.equal(undefined);
  });
});

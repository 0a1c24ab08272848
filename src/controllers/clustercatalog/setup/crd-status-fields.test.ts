import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { load } from 'js-yaml';
import { clusterCatalogCRD } from '../../../api/v1/crds.js';
import type { ServedCRD } from './crd-status-fields.js';
import {
  CLUSTER_CATALOG_CRD_NAME,
  CRDStatusFieldsCheck,
  OUR_STATUS_FIELDS,
  crdProblemMessage,
  missingStatusFields,
} from './crd-status-fields.js';

const UPSTREAM = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../../../../test/fixtures/upstream/clustercatalogs-operator-controller-v1.5.1.yaml',
);

function upstreamCRD(): ServedCRD {
  return load(readFileSync(UPSTREAM, 'utf8')) as ServedCRD;
}

describe('ClusterCatalog CRD status fields', () => {
  it("our CRD keeps every status field; upstream's (operator-controller v1.5.1) drops ours", () => {
    expect(OUR_STATUS_FIELDS).to.include.members(['contentHash', 'syncingTo', 'urls']);
    expect(missingStatusFields(clusterCatalogCRD())).to.deep.equal([]);
    const upstream = upstreamCRD();
    expect(upstream.metadata.name).to.equal(CLUSTER_CATALOG_CRD_NAME);
    expect(missingStatusFields(upstream)).to.deep.equal([
      'contentHash',
      'objectCount',
      'objectSourceRef',
      'observedGeneration',
      'storedBytes',
      'syncingTo',
    ]);
  });

  it('one deterministic message that says what is wrong and what to run', () => {
    expect(crdProblemMessage([])).to.equal(undefined);
    expect(crdProblemMessage(['contentHash', 'syncingTo'])).to.equal(
      'the ClusterCatalog CRD the apiserver serves lacks the status fields contentHash, syncingTo (another ClusterCatalog CRD, such as OLM v1\'s, was applied over catalogd-ts\'s), so the apiserver drops them: run "kubectl apply --server-side --force-conflicts -k config/crd" in the catalogd-ts release to restore ours; HTTP content is still served from status.urls.base',
    );
  });

  it('the check says when the verdict changes: clobbered, then ours again', () => {
    const check = new CRDStatusFieldsCheck();
    expect(check.observe(clusterCatalogCRD())).to.equal(false);
    expect(check.problem()).to.equal(undefined);
    expect(check.observe(upstreamCRD())).to.equal(true);
    expect(check.problem()).to.match(/^the ClusterCatalog CRD the apiserver serves lacks/);
    expect(check.observe(upstreamCRD())).to.equal(false);
    expect(check.observe(clusterCatalogCRD())).to.equal(true);
    expect(check.problem()).to.equal(undefined);
    // No CRD served: nothing to compare, nothing said.
    expect(check.observe(undefined)).to.equal(false);
  });
});

// `make deploy VIEW=served|crd` (hack/deploy.sh, CATALOGD_VIEW) without a cluster: a stand-in
// kubectl records its calls and renders the overlay it is asked to apply (with the real
// kubectl's kustomize), in a scratch CATALOGD_LOCAL whose env names a node registry. In e2e:
// it runs the control plane's kubectl, which only `make test-e2e` builds first.
import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadAll } from 'js-yaml';
import { repoRoot } from '../support/cluster.js';
import { localKubectl } from '../support/local-kubectl.js';
import { SERVED_API_SERVICE as API_SERVICE } from '../support/served-api.js';

interface Rendered {
  kind: string;
  metadata: { name: string };
}

describe('make deploy VIEW (hack/deploy.sh)', function () {
  this.timeout(60_000);
  let local: string;

  beforeEach(() => {
    local = mkdtempSync(path.join(tmpdir(), 'deploy-view-'));
    const bin = path.join(local, 'bin');
    mkdirSync(bin);
    const realKubectl = localKubectl();
    // Records each call; `-k DIR` is rendered to rendered.yaml; everything else succeeds.
    writeFileSync(
      path.join(bin, 'kubectl'),
      [
        '#!/usr/bin/env bash',
        `echo "$*" >> ${local}/calls`,
        'prev=',
        'for a in "$@"; do',
        `  if [ "$prev" = -k ]; then ${realKubectl} kustomize "$a" > ${local}/rendered.yaml || exit 1; fi`,
        '  prev=$a',
        'done',
        '',
      ].join('\n'),
    );
    chmodSync(path.join(bin, 'kubectl'), 0o755);
    writeFileSync(
      path.join(local, 'env'),
      `KUBECONFIG=${local}/kubeconfig\nKUBE_BIN_DIR=${bin}\nNODE_REGISTRY=192.0.2.1:5000\n`,
    );
  });
  afterEach(() => rmSync(local, { recursive: true, force: true }));

  const deploy = (view?: string) => {
    // Only what this test sets: not the caller's CATALOGD_VIEW or DEPLOY_TLS.
    const { CATALOGD_VIEW: _view, DEPLOY_TLS: _tls, ...env } = process.env;
    return spawnSync(path.join(repoRoot, 'hack', 'deploy.sh'), ['test'], {
      encoding: 'utf8',
      env: { ...env, CATALOGD_LOCAL: local, ...(view !== undefined && { CATALOGD_VIEW: view }) },
    });
  };
  const calls = () => readFileSync(path.join(local, 'calls'), 'utf8').trim().split('\n');
  const rendered = () =>
    (loadAll(readFileSync(path.join(local, 'rendered.yaml'), 'utf8')) as Rendered[]).filter(
      Boolean,
    );

  it('VIEW=served applies config/tls and config/served, then the Secret, the caBundle, no CRD', () => {
    const r = deploy('served');
    expect(r.status, r.stderr).to.equal(0);
    const kinds = rendered().map((o) => `${o.kind}/${o.metadata.name}`);
    expect(kinds).to.include(`APIService/${API_SERVICE}`);
    expect(kinds).to.not.include(
      'CustomResourceDefinition/catalogmetadata.olm.operatorframework.io',
    );
    const c = calls();
    const at = (re: RegExp) => c.findIndex((line) => re.test(line));
    expect(at(/apply --server-side .*-k /)).to.equal(0);
    expect(at(/create secret generic catalogd-ts-serving-cert /)).to.be.greaterThan(0);
    const patch = at(new RegExp(`patch apiservice ${API_SERVICE} --type merge -p .*caBundle`));
    expect(patch).to.be.greaterThan(0);
    expect(at(/delete crd catalogmetadata\.olm\.operatorframework\.io/)).to.be.greaterThan(patch);
    // The caBundle is the CA kept in CATALOGD_LOCAL/serving-cert (reused on the next deploy).
    const ca = readFileSync(path.join(local, 'serving-cert', 'ca.crt'));
    expect(c[patch]).to.include(ca.toString('base64'));
  });

  it('the default (crd) applies config/default alone and removes a left APIService', () => {
    const r = deploy();
    expect(r.status, r.stderr).to.equal(0);
    const kinds = rendered().map((o) => `${o.kind}/${o.metadata.name}`);
    expect(kinds).to.include('CustomResourceDefinition/catalogmetadata.olm.operatorframework.io');
    expect(kinds.filter((k) => k.startsWith('APIService/'))).to.deep.equal([]);
    expect(
      calls().some((l) => l.includes(`delete apiservice ${API_SERVICE} --ignore-not-found`)),
    ).to.equal(true);
  });

  it('refuses another VIEW in one line, before touching the cluster', () => {
    const r = deploy('etcd');
    expect(r.status).to.equal(2);
    expect(r.stderr.trim()).to.equal(
      "deploy: VIEW (CATALOGD_VIEW) must be crd or served, not 'etcd'",
    );
    expect(() => calls()).to.throw(/ENOENT/);
  });
});

// The served view's front against the real control plane (issue 55 point 4; docs/served-security.md):
// the controller started with --object-view=served reads the cluster's real
// kube-system/extension-apiserver-authentication ConfigMap (its log says which requestheader
// settings it applied, equal to the ConfigMap's), answers a direct request to --api-listen without
// the front proxy's certificate with 401 whatever X-Remote-* headers it sends, answers the probes,
// and writes no CatalogMetadata for a catalog it synced (the status still counts the objects the
// served view shows). The authorization the front makes (a SubjectAccessReview with
// resourceAttributes, cached) is checked against the real apiserver's RBAC: a user without `list`
// is denied, one bound to it allowed, for that verb and group only. Through the aggregator (an
// APIService, 403 for a user without list, the objects for one with it): served-view.test.ts.
import { expect } from 'chai';
import { readFile } from 'node:fs/promises';
import { SERVED_GROUP } from '../../src/api/v1/index.js';
import { DelegatedAccess } from '../../src/controllers/runtime/delegated-access.js';
import { KubeClient, accessReviews } from '../../src/kube/index.js';
import { realClock } from '../../src/util/clock.js';
import { listObjects, sampleDir } from '../support/catalogs.js';
import type { RunningController } from '../support/controller.js';
import { pushAndSync, setUpE2e, tearDownE2e } from '../support/e2e-setup.js';
import { kubectlOk } from '../support/kubectl.js';
import { uniqueName } from '../support/names.js';
import { pollUntil } from '../support/poll.js';
import type { ServedController } from '../support/served-e2e.js';
import { httpsGet as get, startServedController } from '../support/served-e2e.js';

/** The controller's JSON log records whose msg starts with `prefix`. */
async function logRecords(file: string, prefix: string): Promise<Array<Record<string, unknown>>> {
  const text = await readFile(file, 'utf8');
  return text
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, unknown>)
    .filter((r) => typeof r.msg === 'string' && r.msg.startsWith(prefix));
}

describe('served view e2e: the front (--object-view=served)', function () {
  this.timeout(300_000);
  const name = uniqueName('served');
  const reader = uniqueName('served-reader');
  let tmp = '';
  let served: ServedController | undefined;
  let ca = '';
  let api = '';
  let controller: RunningController;

  before(async () => {
    ({ tmp } = await setUpE2e({ tmpPrefix: 'served-front-e2e-' }));
    // Not behind the APIService: requests come to --api-listen directly.
    served = await startServedController({
      tmp,
      service: 'catalogd-served-front-e2e',
      register: false,
    });
    ({ ca, directUrl: api, controller } = served);
  });

  after(async () => {
    await kubectlOk(['delete', 'clusterrolebinding,clusterrole', reader, '--ignore-not-found']);
    await served?.stop();
    await tearDownE2e({ catalogs: [name], tmp });
  });

  it('reads the requestheader settings of the real extension-apiserver-authentication ConfigMap', async () => {
    const stdout = await kubectlOk([
      ...['get', 'configmap', '-n', 'kube-system', 'extension-apiserver-authentication'],
      ...['-o', 'json'],
    ]);
    const data = (JSON.parse(stdout) as { data?: Record<string, string> }).data ?? {};
    const records = await pollUntil(
      async () => {
        const r = await logRecords(controller.logFile, 'served API: ');
        return r.length > 0 ? r : undefined;
      },
      { timeoutMs: 30_000, what: 'the served API to log its requestheader settings' },
    );
    const first = records[0] ?? {};
    if (data['requestheader-client-ca-file']) {
      expect(first.msg).to.equal('served API: requestheader settings applied');
      expect(first.allowedNames).to.deep.equal(
        JSON.parse(data['requestheader-allowed-names'] ?? '[]'),
      );
      expect(first.usernameHeaders).to.deep.equal(
        JSON.parse(data['requestheader-username-headers'] ?? '["X-Remote-User"]'),
      );
    } else {
      expect(first.msg).to.equal(
        'served API: no front-proxy client CA; every request is refused (401)',
      );
    }
  });

  it('refuses a direct request without the front-proxy certificate with 401, whatever headers it sends', async () => {
    for (const p of [
      `/apis/${SERVED_GROUP}/v1/catalogmetadata`,
      '/apis',
      `/apis/${SERVED_GROUP}/v1`,
    ]) {
      const answer = await get(`${api}${p}`, ca, {
        'X-Remote-User': 'system:admin',
        'X-Remote-Group': 'system:masters',
      });
      expect(answer.status, p).to.equal(401);
      expect(JSON.parse(answer.body)).to.deep.equal({
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message: 'Unauthorized',
        reason: 'Unauthorized',
        code: 401,
      });
    }
    expect(await get(`${api}/healthz`, ca)).to.deep.equal({ status: 200, body: 'ok' });
    // Ready once its ClusterCatalogs are listed (the controller's own /readyz waited for that).
    expect(await get(`${api}/readyz`, ca)).to.deep.equal({ status: 200, body: 'ok' });
  });

  it('writes no CatalogMetadata for a catalog it synced; the status counts what the view shows', async () => {
    const synced = await pushAndSync(name, sampleDir, `sample:${name}`);
    expect(synced.status?.objectCount ?? 0).to.be.greaterThan(0);
    expect((await listObjects(`catalog=${name}`)).items).to.deep.equal([]);
    expect(await controller.metric('catalogd_catalogmetadata_writes_total')).to.equal(0);
    // Its content is served over HTTP as in the CRD mode.
    const all = await get(`${synced.status?.urls?.base ?? ''}/api/v1/all`, ca);
    expect(all.status).to.equal(200);
  });

  it("authorizes by the real apiserver's SubjectAccessReview of the resource: 403 without list, allowed with it", async () => {
    const client = new KubeClient({ kubeconfig: process.env.KUBECONFIG ?? '', maxSockets: 2 });
    try {
      const access = new DelegatedAccess(accessReviews(client), { clock: realClock, denyTtlMs: 0 });
      const user = { username: reader, groups: ['system:authenticated'] };
      const list = {
        verb: 'list',
        group: SERVED_GROUP,
        version: 'v1',
        resource: 'catalogmetadata',
      };
      expect(await access.authorize(user, list)).to.deep.include({ allowed: false, status: 403 });
      await kubectlOk(
        ['apply', '-f', '-'],
        JSON.stringify({
          apiVersion: 'v1',
          kind: 'List',
          items: [
            {
              apiVersion: 'rbac.authorization.k8s.io/v1',
              kind: 'ClusterRole',
              metadata: { name: reader },
              rules: [
                { apiGroups: [SERVED_GROUP], resources: ['catalogmetadata'], verbs: ['list'] },
              ],
            },
            {
              apiVersion: 'rbac.authorization.k8s.io/v1',
              kind: 'ClusterRoleBinding',
              metadata: { name: reader },
              roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: reader },
              subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: reader }],
            },
          ],
        }),
      );
      await pollUntil(async () => (await access.authorize(user, list)).allowed, {
        timeoutMs: 30_000,
        what: `${reader} to be allowed to list catalogmetadata`,
      });
      // The role grants list, not get of one name, nor another group's resource.
      expect(await access.authorize(user, { ...list, verb: 'get', name: 'x' })).to.deep.include({
        allowed: false,
        status: 403,
      });
      expect(
        await access.authorize(user, { ...list, group: 'olm.operatorframework.io' }),
      ).to.deep.include({ allowed: false, status: 403 });
    } finally {
      client.close();
    }
  });
});

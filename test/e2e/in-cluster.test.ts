// catalogd-ts as users run it: the image the Containerfile builds (`make image`: buildah on the
// base stand-in), deployed by `make deploy` (config/default, an overlay setting the image and
// 2 replicas) on the local node. Needs NODE=1 (make test always starts the node).
// - both pods become Ready in catalogd-system, whose `restricted` PodSecurity profile is enforced;
// - one replica holds the Lease; a ClusterCatalog syncs; a pod fetches /api/v1/all through the
//   Service's DNS name; /metrics and /readyz answer; every log line is JSON;
// - deleting the leader pod lets the other replica take the Lease and finish a pending update;
// - a rolling update to another image tag, while a client polls /api/v1/all through the
//   Service: no request fails or answers other content;
// - last (it changes the Deployment and Service): HTTPS (issue 35) with config/tls and a Secret
//   from hack/serving-cert.sh; a pod reads /api/v1/all through the Service's DNS name trusting
//   the CA from a ConfigMap, and the same fetch without the CA fails; /metrics on every pod is
//   then HTTPS behind the apiserver's reviews: 401 without a token, 403 for a ServiceAccount
//   without catalogd-ts-metrics-reader, the metrics once it is bound (the deployed RBAC lets the
//   controller make the reviews).
// At the end everything but the CRDs is deleted: later suites run their own controllers.
import { expect } from 'chai';
import { execFile } from 'node:child_process';
import http from 'node:http';
import https from 'node:https';
import { promisify } from 'node:util';
import type { ClusterCatalog } from '../../src/api/v1/index.js';
import {
  applyCatalog,
  getCatalog,
  push,
  sampleDir,
  waitSynced,
  writeSampleV2,
} from '../support/catalogs.js';
import {
  CATALOGD_NS as NS,
  controllerPods as pods,
  deployCatalogdTs,
  enforcedProfile,
  isReady,
  switchToHttps,
  undeployCatalogdTs,
} from '../support/catalogd-deployment.js';
import { kubectl, kubectlOk } from '../support/kubectl.js';
import { uniqueName } from '../support/names.js';
import { pollUntil } from '../support/poll.js';

const run = promisify(execFile);
// Tags new to each run: the Deployment pulls IfNotPresent, so a fixed tag on a reused cluster
// would run the node's copy of an earlier run's image instead of this tree's.
const tagA = uniqueName('e2e-a');
const tagB = uniqueName('e2e-b');

/** One GET on a new connection (as a pod's curl or a fresh client would send it). */
function getOnce(url: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { agent: false, timeout: 10_000 }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error('timed out')));
    req.on('error', reject);
  });
}

/**
 * One GET of a pod's secure /metrics on a new connection, trusting `ca` for the Service's name
 * (the serving certificate names the Service, not the pod's IP).
 */
function scrapePod(
  ip: string,
  ca: string,
  token?: string,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = https.get(
      `https://${ip}:8080/metrics`,
      {
        ca,
        servername: `catalogd-ts.${NS}.svc`,
        agent: false,
        timeout: 10_000,
        headers: token === undefined ? {} : { authorization: `Bearer ${token}` },
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (body += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error('timed out')));
    req.on('error', reject);
  });
}

async function leaseHolder(): Promise<string> {
  return kubectlOk([
    '-n',
    NS,
    'get',
    'lease',
    'catalogd-ts-leader',
    '-o',
    'jsonpath={.spec.holderIdentity}',
  ]);
}

/** A ConfigMap mounted read-only into a one-shot pod. */
interface ConfigMapMount {
  configMap: string;
  mountPath: string;
}

/** Runs the catalogd-ts image in a one-shot pod (restricted) and returns its output. */
async function runInPod(image: string, script: string, mount?: ConfigMapMount): Promise<string> {
  const name = uniqueName('client');
  await kubectlOk(
    ['apply', '-f', '-'],
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name, namespace: NS },
      spec: {
        restartPolicy: 'Never',
        automountServiceAccountToken: false,
        securityContext: {
          runAsNonRoot: true,
          runAsUser: 65532,
          seccompProfile: { type: 'RuntimeDefault' },
        },
        containers: [
          {
            name: 'client',
            image,
            command: ['node', '-e', script],
            ...(mount && {
              volumeMounts: [{ name: 'mounted', mountPath: mount.mountPath, readOnly: true }],
            }),
            securityContext: {
              allowPrivilegeEscalation: false,
              readOnlyRootFilesystem: true,
              capabilities: { drop: ['ALL'] },
            },
          },
        ],
        ...(mount && { volumes: [{ name: 'mounted', configMap: { name: mount.configMap } }] }),
      },
    }),
  );
  const phase = await pollUntil(
    async () => {
      const p = await kubectlOk(['-n', NS, 'get', 'pod', name, '-o', 'jsonpath={.status.phase}']);
      return p === 'Succeeded' || p === 'Failed' ? p : undefined;
    },
    { timeoutMs: 120_000, intervalMs: 500, what: `pod ${name} to finish` },
  );
  const logs = await kubectlOk(['-n', NS, 'logs', name]);
  await kubectl(['-n', NS, 'delete', 'pod', name, '--wait=false']);
  expect(phase, logs).to.equal('Succeeded');
  return logs;
}

describe('catalogd-ts deployed on the local node (make image, make deploy)', function () {
  this.timeout(10 * 60 * 1000);
  const catalog = uniqueName('incluster');
  let image = '';
  let synced: ClusterCatalog;
  /** The CA of the serving certificate, once the HTTPS test has deployed config/tls. */
  let httpsCa = '';

  before(async function () {
    if (!process.env.NODE_REGISTRY) this.skip(); // a cluster started without NODE=1
    this.timeout(30 * 60 * 1000); // the first image build installs buildah and builds the base
    ({ image } = await deployCatalogdTs(tagA));
    // The same image under a second tag: the rolling update changes the pod template's image.
    await run('buildah', [
      'push',
      '--quiet',
      '--tls-verify=false',
      `catalogd-ts:${tagA}`,
      `docker://${process.env.REGISTRY}/catalogd-ts:${tagB}`,
    ]);
  });

  after(async function () {
    if (!process.env.NODE_REGISTRY) return;
    this.timeout(3 * 60 * 1000);
    await kubectl(['delete', 'clustercatalog', catalog, '--ignore-not-found', '--wait=false']);
    await undeployCatalogdTs();
  });

  it('runs two Ready pods of the image under the enforced restricted profile', async () => {
    const list = await pods();
    expect(list.filter(isReady)).to.have.length(2);
    for (const p of list) expect(p.spec.containers[0]?.image).to.equal(image);
    expect(await enforcedProfile(NS)).to.equal('restricted');
    // Enforced, not only labelled: a pod without the hardening is refused in this namespace.
    const bad = await kubectl([
      '-n',
      NS,
      'run',
      'not-restricted',
      `--image=${image}`,
      '--restart=Never',
      '--dry-run=server',
    ]);
    expect(bad.code).to.not.equal(0);
    expect(bad.stderr).to.contain('violates PodSecurity "restricted');
  });

  it('has one leader: the Lease names one of the pods', async () => {
    const names = (await pods()).filter(isReady).map((p) => p.metadata.name);
    const holder = await pollUntil(async () => (await leaseHolder()) || undefined, {
      timeoutMs: 60_000,
      what: 'a Lease holder',
    });
    expect(names.filter((n) => holder.startsWith(`${n}_`))).to.have.length(1);
  });

  it('syncs a ClusterCatalog from the registry on the node address', async () => {
    await push(sampleDir, `${catalog}:v1`);
    await applyCatalog(catalog, `${process.env.NODE_REGISTRY}/e2e/${catalog}:v1`, {}, 1);
    synced = await waitSynced(catalog, undefined, 180_000);
    // The Service's DNS name and port, as --server-url of config/manager says.
    expect(synced.status?.urls?.base).to.match(
      new RegExp(`^http://catalogd-ts\\.catalogd-system\\.svc:80/catalogs/${catalog}(/|$)`),
    );
  });

  it('serves /api/v1/all to a pod through the Service DNS name', async () => {
    const url = `${synced.status?.urls?.base}/api/v1/all`;
    const out = await runInPod(
      image,
      `fetch(${JSON.stringify(url)}).then(async (r) => { console.log(r.status); console.log((await r.text()).trim().split('\\n').length); })`,
    );
    expect(out.trim().split('\n')).to.deep.equal(['200', String(synced.status?.objectCount)]);
  });

  it('answers /readyz and /metrics on every pod, and logs JSON', async () => {
    for (const p of await pods()) {
      const ip = p.status.podIP;
      expect((await fetch(`http://${ip}:8081/readyz`)).status).to.equal(200);
      const metrics = await (await fetch(`http://${ip}:8080/metrics`)).text();
      expect(metrics).to.contain('# TYPE');
      const logs = (await kubectlOk(['-n', NS, 'logs', p.metadata.name])).trim().split('\n');
      expect(logs.length).to.be.greaterThan(0);
      for (const line of logs) expect(() => JSON.parse(line) as unknown, line).to.not.throw();
    }
  });

  it('lets the other replica finish a pending update when the leader pod is deleted', async () => {
    const before = (await pods()).filter(isReady);
    expect(before).to.have.length(2);
    const holder = await leaseHolder();
    const leader = before.find((p) => holder.startsWith(`${p.metadata.name}_`));
    expect(leader).to.not.equal(undefined);
    // A pending update: the ClusterCatalog names content that is not in the registry yet, so
    // no leader can finish it. The leader goes (after its preStop sleep it releases the Lease);
    // once another replica holds the Lease (the standby, or the Deployment's replacement pod:
    // both may win the released Lease) the content appears, and only that one can sync it.
    const gone = `${leader!.metadata.name}_`;
    await applyCatalog(catalog, `${process.env.NODE_REGISTRY}/e2e/${catalog}:v2`, {}, 1);
    await kubectlOk(['-n', NS, 'delete', 'pod', leader!.metadata.name, '--wait=false']);
    const next = await pollUntil(
      async () => {
        const h = await leaseHolder();
        return h && !h.startsWith(gone) ? h : undefined;
      },
      { timeoutMs: 150_000, what: `the Lease to pass from ${leader!.metadata.name}` },
    );
    await push(await writeSampleV2(), `${catalog}:v2`);
    const updated = await waitSynced(catalog, synced.status?.contentHash, 240_000);
    expect(updated.status?.contentHash).to.not.equal(synced.status?.contentHash);
    expect(await leaseHolder()).to.equal(next);
    const live = (await pods()).filter(isReady).map((p) => `${p.metadata.name}_`);
    expect(
      live.some((n) => next.startsWith(n)),
      `${next} is a Ready pod`,
    ).to.equal(true);
    synced = updated;
    await kubectlOk(['-n', NS, 'rollout', 'status', 'deployment/catalogd-ts', '--timeout=180s']);
  });

  it('rolls to a new image tag with no failed or wrong answer through the Service', async () => {
    const ip = await kubectlOk([
      '-n',
      NS,
      'get',
      'service',
      'catalogd-ts',
      '-o',
      'jsonpath={.spec.clusterIP}',
    ]);
    const url = `http://${ip}/catalogs/${catalog}/api/v1/all`;
    const expected = await (await fetch(url)).text();
    expect(expected.trim().split('\n')).to.have.length(synced.status?.objectCount ?? -1);
    let done = false;
    let requests = 0;
    const failures: string[] = [];
    // The client: bounded (it stops with the rollout, or after 5 minutes at most). Each request
    // on a new connection, as Services balance them: a client that keeps one connection open
    // across the exit of its pod must retry an idempotent GET (docs/deploy.md).
    const client = (async () => {
      const deadline = Date.now() + 5 * 60 * 1000;
      while (!done && Date.now() < deadline) {
        requests++;
        try {
          const r = await getOnce(url);
          if (r.status !== 200) failures.push(`status ${r.status}`);
          else if (r.body !== expected) failures.push('other content');
        } catch (err) {
          failures.push(String(err));
        }
      }
    })();
    await kubectlOk([
      '-n',
      NS,
      'set',
      'image',
      'deployment/catalogd-ts',
      `manager=${process.env.NODE_REGISTRY}/catalogd-ts:${tagB}`,
    ]);
    await kubectlOk(['-n', NS, 'rollout', 'status', 'deployment/catalogd-ts', '--timeout=300s']);
    // The old pods terminate after the rollout reports done: keep polling until they are gone.
    await pollUntil(
      async () => (await pods()).every((p) => p.spec.containers[0]?.image.endsWith(tagB)),
      {
        timeoutMs: 120_000,
        what: 'only pods of the new tag',
      },
    );
    done = true;
    await client;
    expect(failures, failures.slice(0, 5).join('; ')).to.deep.equal([]);
    expect(requests).to.be.greaterThan(10);
    expect((await getCatalog(catalog)).status?.contentHash).to.equal(synced.status?.contentHash);
  });

  // Last: it turns the Deployment and Service to HTTPS, and after() deletes them.
  it('serves /api/v1/all over HTTPS (config/tls) to a pod that trusts the CA, not to one without', async () => {
    // The Secret config/tls mounts (hack/serving-cert.sh), then make deploy with config/tls.
    const ca = await switchToHttps(tagA);
    expect(ca).to.contain('BEGIN CERTIFICATE');
    httpsCa = ca;
    await kubectlOk(
      ['apply', '-f', '-'],
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'catalogd-ts-ca', namespace: NS },
        data: { 'ca.crt': ca },
      }),
    );
    // The leader of the new pods publishes the https base URL.
    const base = await pollUntil(
      async () => {
        const b = (await getCatalog(catalog)).status?.urls?.base;
        return b?.startsWith('https://') ? b : undefined;
      },
      { timeoutMs: 180_000, intervalMs: 1000, what: `an https base URL on ${catalog}` },
    );
    expect(base).to.match(
      new RegExp(`^https://catalogd-ts\\.catalogd-system\\.svc:443/catalogs/${catalog}(/|$)`),
    );
    const url = `${base}/api/v1/all`;
    // One pod, two fetches on new connections: with the CA mounted, then with the default trust.
    const script = `
      const https = require('node:https');
      const ca = require('node:fs').readFileSync('/etc/catalogd-ca/ca.crt');
      const get = (opts) => new Promise((resolve, reject) => {
        https.get(${JSON.stringify(url)}, { agent: false, timeout: 10000, ...opts }, (res) => {
          let body = '';
          res.setEncoding('utf8');
          res.on('data', (d) => (body += d));
          res.on('end', () => resolve([res.statusCode, body]));
          res.on('error', reject);
        }).on('timeout', function () { this.destroy(new Error('timed out')); }).on('error', reject);
      });
      (async () => {
        const [status, body] = await get({ ca });
        console.log(status);
        console.log(body.trim().split('\\n').length);
        try {
          await get({});
          console.log('trusted without the CA');
        } catch (err) {
          console.log(err.code);
        }
      })().catch((err) => { console.log(String(err)); process.exit(1); });`;
    const out = await runInPod(image, script, {
      configMap: 'catalogd-ts-ca',
      mountPath: '/etc/catalogd-ca',
    });
    expect(out.trim().split('\n')).to.deep.equal([
      '200',
      String(synced.status?.objectCount),
      'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
    ]);
  });

  // After the HTTPS test: config/tls also turns /metrics to HTTPS behind the reviews.
  it('serves /metrics over HTTPS (config/tls) only to a token bound to catalogd-ts-metrics-reader', async () => {
    expect(httpsCa, 'the CA of the HTTPS test').to.contain('BEGIN CERTIFICATE');
    await kubectlOk(['-n', NS, 'rollout', 'status', 'deployment/catalogd-ts', '--timeout=180s']);
    const sa = uniqueName('scraper');
    const binding = uniqueName('scraper');
    await kubectlOk(['-n', 'default', 'create', 'serviceaccount', sa]);
    try {
      const token = (
        await kubectlOk(['-n', 'default', 'create', 'token', sa, '--duration=1h'])
      ).trim();
      const ips = (await pods()).filter(isReady).map((p) => p.status.podIP ?? '');
      expect(ips.length).to.be.greaterThan(0);
      for (const ip of ips) {
        expect((await scrapePod(ip, httpsCa)).status, `${ip} without a token`).to.equal(401);
        expect((await scrapePod(ip, httpsCa, token)).status, `${ip} without the role`).to.equal(
          403,
        );
      }
      await kubectlOk([
        'create',
        'clusterrolebinding',
        binding,
        '--clusterrole=catalogd-ts-metrics-reader',
        `--serviceaccount=default:${sa}`,
      ]);
      for (const ip of ips) {
        // The binding reaches the authorizer through its informers, and a refusal is remembered
        // for 2 s: poll.
        const res = await pollUntil(
          async () => {
            const r = await scrapePod(ip, httpsCa, token);
            return r.status === 200 ? r : undefined;
          },
          { timeoutMs: 60_000, intervalMs: 1000, what: `a 200 from ${ip}'s /metrics` },
        );
        expect(res.body).to.contain('# TYPE catalogd_apiserver_requests_total counter');
      }
    } finally {
      await kubectl(['delete', 'clusterrolebinding', binding, '--ignore-not-found']);
      await kubectl(['-n', 'default', 'delete', 'serviceaccount', sa, '--ignore-not-found']);
    }
  });
});

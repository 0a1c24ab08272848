// Secure metrics (SPEC §4: "metrics over HTTPS behind delegated authn/authz, as upstream";
// docs/controller.md, "Metrics") against the real apiserver. The controller runs with a serving
// certificate from hack/serving-cert.sh and nothing else said, so --metrics-secure is on by
// default: /metrics is HTTPS, and a scrape's bearer token is reviewed by the apiserver
// (TokenReview), then its user's `get` on /metrics (SubjectAccessReview). Without a token and
// with a forged one: 401; a ServiceAccount's token without the role: 403; bound to the rules of
// config/rbac's metrics-reader ClusterRole: 200 and the Prometheus text, in which the controller's
// own reviews are counted. Plain metrics with a certificate (--no-metrics-secure) are read by
// server-tls.test.ts; the deployed overlay (config/tls) by in-cluster.test.ts.
import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { load } from 'js-yaml';
import { installCrds } from '../support/catalogs.js';
import { repoRoot } from '../support/cluster.js';
import type { RunningController } from '../support/controller.js';
import { metricSumIn, startController } from '../support/controller.js';
import { kubectl, kubectlOk } from '../support/kubectl.js';
import { uniqueName } from '../support/names.js';
import { pollUntil } from '../support/poll.js';

const exec = promisify(execFile);

interface Scrape {
  status: number;
  contentType: string;
  body: string;
}

/** One GET over a new connection, trusting `ca`, with the token as a bearer token if given. */
function scrape(url: string, ca: Buffer, token?: string): Promise<Scrape> {
  return new Promise((resolve, reject) => {
    https
      .get(
        url,
        {
          ca,
          agent: false,
          timeout: 30_000,
          headers: token === undefined ? {} : { authorization: `Bearer ${token}` },
        },
        (res) => {
          let body = '';
          res.setEncoding('utf8');
          res.on('data', (d: string) => (body += d));
          res.on('end', () =>
            resolve({
              status: res.statusCode ?? 0,
              contentType: res.headers['content-type'] ?? '',
              body,
            }),
          );
          res.on('error', reject);
        },
      )
      .on('timeout', function (this: { destroy(err: Error): void }) {
        this.destroy(new Error(`GET ${url} timed out`));
      })
      .on('error', reject);
  });
}

describe('metrics e2e: HTTPS behind TokenReview and SubjectAccessReview', function () {
  this.timeout(240_000);
  const ns = uniqueName('metrics-auth');
  // The rules config/rbac ships as catalogd-ts-metrics-reader, under a name of this run: the
  // shipped name is cluster-wide, and deploy.test.ts applies and deletes it.
  const role = uniqueName('metrics-reader');
  const binding = uniqueName('metrics-reader');
  let tmp = '';
  let ca: Buffer;
  let controller: RunningController | undefined;
  let url = '';
  let readerToken = '';
  let strangerToken = '';

  before(async () => {
    await installCrds();
    tmp = await mkdtemp(path.join(os.tmpdir(), 'metrics-auth-e2e-'));
    await exec(
      path.join(repoRoot, 'hack', 'serving-cert.sh'),
      ['--out', tmp, '--no-secret', '--days', '2', '--ip', '127.0.0.1', '--dns', 'localhost'],
      { cwd: repoRoot },
    );
    ca = readFileSync(path.join(tmp, 'ca.crt'));
    controller = await startController({
      args: [
        `--tls-cert-file=${path.join(tmp, 'tls.crt')}`,
        `--tls-key-file=${path.join(tmp, 'tls.key')}`,
      ],
    });
    url = controller.metricsUrl;

    await kubectlOk(['create', 'namespace', ns]);
    for (const sa of ['reader', 'stranger'])
      await kubectlOk(['-n', ns, 'create', 'serviceaccount', sa]);
    const shipped = load(
      readFileSync(path.join(repoRoot, 'config', 'rbac', 'metrics_reader_role.yaml'), 'utf8'),
    ) as { metadata: { name: string } };
    await kubectlOk(
      ['apply', '-f', '-'],
      JSON.stringify({ ...shipped, metadata: { ...shipped.metadata, name: role } }),
    );
    await kubectlOk([
      'create',
      'clusterrolebinding',
      binding,
      `--clusterrole=${role}`,
      `--serviceaccount=${ns}:reader`,
    ]);
    const token = async (sa: string) =>
      (await kubectlOk(['-n', ns, 'create', 'token', sa, '--duration=1h'])).trim();
    readerToken = await token('reader');
    strangerToken = await token('stranger');
  });

  after(async () => {
    await controller?.stop();
    await kubectl(['delete', 'clusterrolebinding', binding, '--ignore-not-found']);
    await kubectl(['delete', 'clusterrole', role, '--ignore-not-found']);
    await kubectl(['delete', 'namespace', ns, '--ignore-not-found', '--wait=false']);
    if (tmp) await rm(tmp, { recursive: true, force: true });
  });

  it('serves /metrics over HTTPS with the serving certificate by default', () => {
    expect(url).to.match(/^https:\/\/127\.0\.0\.1:\d+\/metrics$/);
  });

  it('answers 401 to a request without a token', async () => {
    const res = await scrape(url, ca);
    expect(res.status).to.equal(401);
    expect(res.body).to.equal('Unauthorized\n');
  });

  it('answers 401 to a token the apiserver does not accept', async () => {
    const forged = `${readerToken.slice(0, -8)}AAAAAAAA`;
    for (const token of ['not-a-token', forged]) {
      const res = await scrape(url, ca, token);
      expect(res.status, token.slice(0, 12)).to.equal(401);
      expect(res.body).to.not.include('# TYPE');
    }
  });

  it('answers 403 to a ServiceAccount without the metrics-reader role', async () => {
    const res = await scrape(url, ca, strangerToken);
    expect(res.status).to.equal(403);
    expect(res.body).to.equal(
      `Forbidden: user "system:serviceaccount:${ns}:stranger" cannot get path "/metrics"\n`,
    );
  });

  it('serves the Prometheus text to a ServiceAccount bound to the metrics-reader rules', async () => {
    // The binding reaches the apiserver's authorizer through its informers: poll.
    const res = await pollUntil(
      async () => {
        const r = await scrape(url, ca, readerToken);
        return r.status === 200 ? r : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 500, what: `a 200 from ${url} for the reader` },
    );
    expect(res.contentType).to.match(/^text\/plain; version=0\.0\.4/);
    expect(res.body).to.match(/^# HELP /m);
    expect(res.body).to.match(/^# TYPE catalogd_apiserver_requests_total counter$/m);
    // Another path is refused even to the reader: the role names /metrics only.
    expect((await scrape(url.replace(/\/metrics$/, '/debug'), ca, readerToken)).status).to.equal(
      403,
    );
  });

  it('made its reviews through the apiserver, and counts them', async () => {
    const { body } = await scrape(url, ca, readerToken);
    const created = (resource: string) =>
      metricSumIn(body, 'catalogd_apiserver_requests_total', {
        verb: 'create',
        resource,
        code: '201',
      });
    expect(created('tokenreviews')).to.be.greaterThan(0);
    expect(created('subjectaccessreviews')).to.be.greaterThan(0);
  });
});

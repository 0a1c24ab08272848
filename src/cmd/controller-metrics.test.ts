// The controller's metrics server as `catalogd controller` starts it, against a stand-in apiserver
// that answers TokenReviews and SubjectAccessReviews: plain HTTP to anyone without
// --metrics-secure; with it, HTTPS with the serving certificate (reloaded when its files change),
// 401 without a token or with one the apiserver refuses, 403 for a user not allowed, the metrics
// for one allowed, and 503 (logged) when the apiserver cannot review.
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { copyFile, mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { TLSSocket } from 'node:tls';
import { fileURLToPath } from 'node:url';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { Counter, Registry } from 'prom-client';
import { machineFor } from '../../test/support/kube-env.js';
import { pollUntil } from '../../test/support/poll.js';
import type { ProbeServer } from '../controllers/runtime/index.js';
import { KubeClient } from '../kube/index.js';
import { ManualClock } from '../util/clock.js';
import { parseControllerOptions } from './controller-options.js';
import { startMetricsServer } from './controller-metrics.js';

const fixture = (f: string) =>
  fileURLToPath(new URL(`../../test/fixtures/tls/${f}`, import.meta.url));

const READER = 'system:serviceaccount:monitoring:prometheus';

/** An apiserver stand-in: tokens "reader" and "stranger"; only the reader may get /metrics. */
async function reviewingApiserver() {
  const state = { down: false, reviews: [] as string[] };
  const server = http.createServer((req, res) => {
    let text = '';
    req.setEncoding('utf8');
    req.on('data', (d: string) => (text += d));
    req.on('end', () => {
      const body = JSON.parse(text) as { spec: Record<string, unknown> };
      state.reviews.push(req.url ?? '');
      const answer = (status: number, obj: unknown) =>
        res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(obj));
      if (state.down) return answer(503, { kind: 'Status', reason: 'ServiceUnavailable' });
      if (req.url === '/apis/authentication.k8s.io/v1/tokenreviews') {
        const token = body.spec.token;
        const username =
          token === 'reader' ? READER : token === 'stranger' ? 'system:anonymous-ish' : undefined;
        return answer(201, {
          status: username
            ? { authenticated: true, user: { username, groups: ['system:authenticated'] } }
            : { error: 'invalid bearer token' },
        });
      }
      const attrs = body.spec.nonResourceAttributes as { path: string; verb: string };
      const allowed =
        body.spec.user === READER && attrs.path === '/metrics' && attrs.verb === 'get';
      return answer(201, { status: { allowed } });
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return { state, url: `http://127.0.0.1:${port}`, close: () => server.close() };
}

function get(
  url: string,
  token?: string,
): Promise<{ status: number; body: string; serial?: string; type?: string }> {
  return new Promise((resolve, reject) => {
    const lib = url.startsWith('https:') ? https : http;
    const req = lib.get(
      url,
      {
        agent: false,
        ...(url.startsWith('https:') && { ca: readFileSync(fixture('ca.crt')) }),
        headers: token ? { authorization: `Bearer ${token}` } : {},
      },
      (res) => {
        const socket = res.socket as TLSSocket;
        const serial = socket.encrypted ? socket.getPeerCertificate().serialNumber : undefined;
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (body += d));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            body,
            ...(serial && { serial }),
            ...(res.headers['content-type'] && { type: res.headers['content-type'] }),
          }),
        );
      },
    );
    req.on('error', reject);
  });
}

describe('cmd/controller-metrics: the metrics server', () => {
  let api: Awaited<ReturnType<typeof reviewingApiserver>>;
  let client: KubeClient;
  let dir = '';
  const logLines: Array<{ level: number; msg: string; status?: number }> = [];
  const log = pino(
    { level: 'debug' },
    new Writable({
      write(chunk: Buffer, _enc, done) {
        logLines.push(JSON.parse(chunk.toString()) as (typeof logLines)[number]);
        done();
      },
    }),
  );
  const registry = new Registry();
  new Counter({ name: 'catalogd_test_total', help: 'a metric', registers: [registry] }).inc(7);

  before(async () => {
    api = await reviewingApiserver();
    client = new KubeClient({ env: machineFor(api.url), attempts: 1 });
    dir = await mkdtemp(path.join(os.tmpdir(), 'metrics-server-'));
    await copyFile(fixture('a.crt'), path.join(dir, 'tls.crt'));
    await copyFile(fixture('a.key'), path.join(dir, 'tls.key'));
  });

  after(async () => {
    client.close();
    api.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('serves plain HTTP to anyone without a certificate (make run)', async () => {
    const opts = parseControllerOptions(['--metrics-addr=127.0.0.1:0'])!;
    const server = await startMetricsServer(opts, { registry, client, log });
    try {
      expect(server.url).to.match(/^http:\/\//);
      const res = await get(`${server.url}/metrics`);
      expect(res.status).to.equal(200);
      expect(res.body).to.include('catalogd_test_total 7');
      expect(api.state.reviews).to.deep.equal([]);
    } finally {
      await server.close();
    }
  });

  describe('with a serving certificate (--metrics-secure by default)', () => {
    let server: ProbeServer;
    const clock = new ManualClock(new Date('2030-01-01T00:00:00Z'));

    before(async () => {
      const opts = parseControllerOptions([
        '--metrics-addr=127.0.0.1:0',
        `--tls-cert-file=${path.join(dir, 'tls.crt')}`,
        `--tls-key-file=${path.join(dir, 'tls.key')}`,
        '--tls-reload-interval=1s',
      ])!;
      expect(opts.metricsSecure).to.equal(true);
      server = await startMetricsServer(opts, { registry, client, log, clock });
    });

    after(() => server.close());

    it('serves HTTPS', () => {
      expect(server.url).to.match(/^https:\/\/127\.0\.0\.1:\d+$/);
    });

    it('refuses a request without a token (401) without asking the apiserver', async () => {
      const before = api.state.reviews.length;
      const res = await get(`${server.url}/metrics`);
      expect(res.status).to.equal(401);
      expect(res.body).to.equal('Unauthorized\n');
      expect(api.state.reviews).to.have.length(before);
    });

    it('refuses a token the apiserver does not accept (401)', async () => {
      expect((await get(`${server.url}/metrics`, 'forged')).status).to.equal(401);
    });

    it('refuses a user not allowed to get /metrics (403)', async () => {
      const res = await get(`${server.url}/metrics`, 'stranger');
      expect(res.status).to.equal(403);
      expect(res.body).to.equal(
        'Forbidden: user "system:anonymous-ish" cannot get path "/metrics"\n',
      );
    });

    it('serves the metrics to a user allowed to get /metrics', async () => {
      const res = await get(`${server.url}/metrics`, 'reader');
      expect(res.status).to.equal(200);
      expect(res.type).to.match(/^text\/plain; version=0\.0\.4/);
      expect(res.body).to.include('catalogd_test_total 7');
    });

    it('refuses with 503 and logs it when the apiserver cannot review; the cache does not let it through', async () => {
      await clock.advance(10_000); // past every cached answer
      api.state.down = true;
      try {
        const res = await get(`${server.url}/metrics`, 'reader');
        expect(res.status).to.equal(503);
        expect(res.body).to.match(/^Authentication failed/);
        expect(
          logLines.some((l) => l.msg === 'metrics request refused: no review' && l.status === 503),
        ).to.equal(true);
      } finally {
        api.state.down = false;
      }
      expect((await get(`${server.url}/metrics`, 'reader')).status).to.equal(200);
    });

    it('serves a new certificate once its files change, without a restart', async () => {
      const first = (await get(`${server.url}/metrics`, 'reader')).serial;
      await copyFile(fixture('b.crt'), path.join(dir, 'tls.crt'));
      await copyFile(fixture('b.key'), path.join(dir, 'tls.key'));
      await clock.advance(1000);
      const next = await pollUntil(
        async () => {
          const { serial } = await get(`${server.url}/metrics`, 'reader');
          return serial !== first ? serial : undefined;
        },
        { timeoutMs: 10_000, intervalMs: 50, what: 'the new certificate' },
      );
      expect(next).to.be.a('string');
      expect(logLines.some((l) => l.msg === 'metrics server certificate reloaded')).to.equal(true);
    });
  });
});

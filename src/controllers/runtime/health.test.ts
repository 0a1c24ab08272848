import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import https from 'node:https';
import type { TLSSocket } from 'node:tls';
import type { ProbeServer, RequestGuard } from './health.js';
import { HealthChecks, startProbeServer, syncedCheck } from './health.js';
import { createMetricsRegistry, newCounter } from './metrics.js';

describe('probe server', () => {
  let server: ProbeServer;
  const healthz = new HealthChecks('healthz');
  const readyz = new HealthChecks('readyz');
  const informers = [
    {
      name: 'clustercatalogs',
      synced: false,
      hasSynced() {
        return this.synced;
      },
    },
    {
      name: 'catalogmetadata',
      synced: false,
      hasSynced() {
        return this.synced;
      },
    },
  ];
  const registry = createMetricsRegistry({ processMetrics: false });
  const pulls = newCounter(registry, { name: 'test_pulls_total', help: 'pulls' });

  before(async () => {
    healthz.add('ping', () => true);
    readyz.add('informers-synced', syncedCheck(informers));
    readyz.add('shutdown', () => true);
    server = await startProbeServer({
      healthz,
      readyz,
      metrics: registry,
      host: '127.0.0.1',
      port: 0,
    });
  });

  after(() => server.close());

  it('answers /healthz with ok', async () => {
    const res = await fetch(`${server.url}/healthz`);
    expect(res.status).to.equal(200);
    expect(await res.text()).to.equal('ok\n');
  });

  it('answers /readyz 503 naming the failing checks, then 200 once they pass', async () => {
    let res = await fetch(`${server.url}/readyz`);
    expect(res.status).to.equal(503);
    expect(await res.text()).to.equal(
      '[-]informers-synced failed: not synced: clustercatalogs, catalogmetadata\n' +
        '[+]shutdown ok\n' +
        'readyz check failed\n',
    );
    for (const i of informers) i.synced = true;
    res = await fetch(`${server.url}/readyz`);
    expect(res.status).to.equal(200);
    expect(await res.text()).to.equal('ok\n');
    res = await fetch(`${server.url}/readyz?verbose`);
    expect(await res.text()).to.equal(
      '[+]informers-synced ok\n[+]shutdown ok\nreadyz check passed\n',
    );
  });

  it('runs a single check at /readyz/<name>, and 404s unknown ones', async () => {
    const res = await fetch(`${server.url}/readyz/shutdown`);
    expect(res.status).to.equal(200);
    expect((await fetch(`${server.url}/readyz/nope`)).status).to.equal(404);
    expect((await fetch(`${server.url}/nope`)).status).to.equal(404);
  });

  it('serves the registry at /metrics in the Prometheus text format', async () => {
    pulls.inc(3);
    const res = await fetch(`${server.url}/metrics`);
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.match(/^text\/plain; version=0\.0\.4/);
    expect(await res.text()).to.include('test_pulls_total 3');
  });

  it('answers HEAD without a body and rejects other methods', async () => {
    const head = await fetch(`${server.url}/healthz`, { method: 'HEAD' });
    expect(head.status).to.equal(200);
    expect(await head.text()).to.equal('');
    expect((await fetch(`${server.url}/healthz`, { method: 'POST' })).status).to.equal(405);
  });
});

const fixture = (f: string) =>
  readFileSync(new URL(`../../../test/fixtures/tls/${f}`, import.meta.url));

/** One GET over a new TLS connection trusting the fixtures' CA. */
function getTls(
  url: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: string; serial: string; headers: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    https
      .get(url, { ca: fixture('ca.crt'), agent: false, headers }, (res) => {
        const serial = (res.socket as TLSSocket).getPeerCertificate().serialNumber;
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (body += d));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, body, serial, headers: res.headers }),
        );
        res.on('error', reject);
      })
      .on('error', reject);
  });
}

describe('probe server over HTTPS, behind a guard', () => {
  let server: ProbeServer;
  const registry = createMetricsRegistry({ processMetrics: false });
  newCounter(registry, { name: 'test_guarded_total', help: 'guarded' }).inc();
  const asked: string[] = [];
  const guard: RequestGuard = (req, path) => {
    asked.push(`${req.method} ${path}`);
    return Promise.resolve(
      req.headers.authorization === 'Bearer ok'
        ? undefined
        : { status: 401, message: 'Unauthorized', headers: { 'www-authenticate': 'Bearer' } },
    );
  };

  before(async () => {
    server = await startProbeServer({
      metrics: registry,
      host: '127.0.0.1',
      port: 0,
      tls: { cert: fixture('a.crt'), key: fixture('a.key') },
      guard,
    });
  });

  after(() => server.close());

  it('serves https:// and asks the guard about every request, the path without its query', async () => {
    expect(server.url).to.match(/^https:\/\/127\.0\.0\.1:\d+$/);
    const refused = await getTls(`${server.url}/metrics?x=1`);
    expect(refused.status).to.equal(401);
    expect(refused.body).to.equal('Unauthorized\n');
    expect(refused.headers['www-authenticate']).to.equal('Bearer');
    const admitted = await getTls(`${server.url}/metrics`, { authorization: 'Bearer ok' });
    expect(admitted.status).to.equal(200);
    expect(admitted.body).to.include('test_guarded_total 1');
    // Admitted, then answered as over plain HTTP: no health checks on this server.
    expect((await getTls(`${server.url}/healthz`, { authorization: 'Bearer ok' })).status).to.equal(
      404,
    );
    expect(asked).to.deep.equal(['GET /metrics', 'GET /metrics', 'GET /healthz']);
  });

  it('serves new TLS options to new connections (a reloaded certificate)', async () => {
    const first = await getTls(`${server.url}/metrics`, { authorization: 'Bearer ok' });
    server.setSecureContext({ cert: fixture('b.crt'), key: fixture('b.key') });
    const second = await getTls(`${server.url}/metrics`, { authorization: 'Bearer ok' });
    expect(second.status).to.equal(200);
    expect(second.serial).to.not.equal(first.serial);
  });

  it('refuses setSecureContext on a plain HTTP server', async () => {
    const plain = await startProbeServer({ metrics: registry, host: '127.0.0.1', port: 0 });
    try {
      expect(() => plain.setSecureContext({})).to.throw(/plain HTTP/);
    } finally {
      await plain.close();
    }
  });
});

describe('HealthChecks', () => {
  it('reports thrown errors and false results as failures', async () => {
    const checks = new HealthChecks('readyz');
    checks.add('a', () => false);
    checks.add('b', async () => {
      throw new Error('lease not renewed');
    });
    checks.add('c', () => undefined);
    expect(await checks.run()).to.deep.equal([
      { name: 'a', ok: false, reason: 'check returned false' },
      { name: 'b', ok: false, reason: 'lease not renewed' },
      { name: 'c', ok: true },
    ]);
  });

  it('rejects duplicate and invalid names', () => {
    const checks = new HealthChecks('healthz');
    checks.add('x', () => true);
    expect(() => checks.add('x', () => true)).to.throw(/already exists/);
    expect(() => checks.add('a/b', () => true)).to.throw(/invalid/);
    checks.remove('x');
    expect(checks.names()).to.deep.equal([]);
  });
});

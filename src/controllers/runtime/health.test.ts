import { expect } from 'chai';
import type { ProbeServer } from './health.js';
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

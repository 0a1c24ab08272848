import { expect } from 'chai';
import { Registry } from 'prom-client';
import { newCounters } from './counters.js';
import { registerSourceMetrics } from './metrics.js';

describe('source/metrics', () => {
  it('exposes the counters at scrape time', async () => {
    const registry = new Registry();
    const c = newCounters();
    registerSourceMetrics(registry, c);
    c.requests.blob = 3;
    c.bytes.blob = 1234;
    c.cacheHits = 2;
    const text = await registry.metrics();
    expect(text).to.contain('catalogd_source_requests_total{kind="blob"} 3');
    expect(text).to.contain('catalogd_source_bytes_total{kind="blob"} 1234');
    expect(text).to.contain('catalogd_source_cache_hits_total 2');
    c.requests.blob = 5;
    expect(await registry.metrics()).to.contain('catalogd_source_requests_total{kind="blob"} 5');
  });
});

import { expect } from 'chai';
import type { CostModel, CostSample } from './cost-model.js';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { ContentProfile } from '../api/v1/index.js';
import { COST_MODEL, costModel, fitCostModel, fitLinear, predictCost } from './cost-model.js';

const sample = (objects: number, objectBytes: number): CostSample => ({
  objects,
  objectBytes,
  etcdBytes: 700 * objects + 1.2 * objectBytes,
  apiserverHeapBytes: 15000 * objects + 3 * objectBytes,
});

describe('cost model', () => {
  it('fits per-object and per-byte coefficients from catalogs of different bytes per object', () => {
    const c = fitCostModel('t', { full: [sample(1106, 5_000_000), sample(925, 13_000_000)] });
    expect(c.profiles.full).to.deep.equal({
      etcdBytesPerObject: 700,
      etcdBytesPerObjectByte: 1.2,
      apiserverHeapBytesPerObject: 15000,
      apiserverHeapBytesPerObjectByte: 3,
    });
  });

  it('fits one apiserver heap floor per object for every profile, and a per-byte term each', () => {
    // The lean catalogs alone have nearly the same bytes per object: their floor is found from
    // the full ones.
    const lean = (objects: number, objectBytes: number): CostSample => ({
      ...sample(objects, objectBytes),
      apiserverHeapBytes: 15000 * objects + 9 * objectBytes,
    });
    const c = fitCostModel('t', {
      full: [sample(1106, 5_000_000), sample(925, 13_000_000), sample(266, 20_000_000)],
      lean: [lean(1106, 2_400_000), lean(925, 2_000_000)],
    });
    expect(c.profiles.full?.apiserverHeapBytesPerObject).to.equal(15000);
    expect(c.profiles.lean?.apiserverHeapBytesPerObject).to.equal(15000);
    expect(c.profiles.lean?.apiserverHeapBytesPerObjectByte).to.equal(9);
  });

  // The committed coefficients against the run they were fitted on (bench/data): heap within
  // 25 % of measured on every catalog and profile but one, real v4.20 full (many small JSON
  // values, docs/deploy.md "Control-plane cost"); etcd within 5 % on all.
  it('predicts the measured catalogs from the committed coefficients', () => {
    const file = path.resolve(import.meta.dirname, '../../bench/data/stop31-cost-samples.json');
    const data = JSON.parse(readFileSync(file, 'utf8')) as {
      samples: Record<ContentProfile, Array<CostSample & { catalog: string }>>;
    };
    const off: string[] = [];
    for (const [profile, samples] of Object.entries(data.samples)) {
      for (const s of samples) {
        const p = predictCost(profile as ContentProfile, s)!;
        const heap = p.apiserverHeapBytes / s.apiserverHeapBytes;
        if (Math.abs(heap - 1) > 0.25) off.push(`${profile} ${s.catalog} heap`);
        if (Math.abs(p.etcdBytes / s.etcdBytes - 1) > 0.05)
          off.push(`${profile} ${s.catalog} etcd`);
      }
    }
    expect(off).to.deep.equal(['full real-v4.20 heap']);
    expect(COST_MODEL.profiles.lean?.apiserverHeapBytesPerObject).to.be.greaterThan(0);
  });

  it('refuses a coefficients file that is not a cost model', () => {
    expect(() =>
      costModel({ measuredBy: 'x', profiles: { full: { etcdBytesPerObject: 'a' } } }),
    ).to.throw('not a cost model');
  });

  it('puts everything on the object bytes with one catalog, or when a coefficient would be negative', () => {
    expect(fitLinear([sample(1000, 4_000_000)], (s) => s.etcdBytes)).to.deep.equal({
      perObject: 0,
      perObjectByte: (700 * 1000 + 1.2 * 4_000_000) / 4_000_000,
    });
    const noisy: CostSample[] = [
      { objects: 1000, objectBytes: 4e6, etcdBytes: 8e6, apiserverHeapBytes: 0 },
      { objects: 1000, objectBytes: 5e6, etcdBytes: 20e6, apiserverHeapBytes: 0 },
    ];
    expect(fitLinear(noisy, (s) => s.etcdBytes).perObject).to.equal(0);
  });

  it('predicts each measured profile linearly and leaves out the unmeasured ones', () => {
    const model: CostModel = {
      measuredBy: 't',
      profiles: {
        full: {
          etcdBytesPerObject: 10,
          etcdBytesPerObjectByte: 2,
          apiserverHeapBytesPerObject: 100,
          apiserverHeapBytesPerObjectByte: 4,
        },
      },
    };
    expect(predictCost('full', { objects: 3, objectBytes: 1000 }, model)).to.deep.equal({
      etcdBytes: 2030,
      apiserverHeapBytes: 4300,
    });
    expect(predictCost('lean', { objects: 3, objectBytes: 1000 }, model)).to.equal(undefined);
  });
});

import { expect } from 'chai';
import type { CostModel, CostSample } from './render-cost-model.js';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { ContentProfile } from '../api/v1/index.js';
import {
  COST_MODEL,
  costModel,
  countContentValues,
  fitCostModel,
  fitLinear,
  predictCost,
} from './render-cost-model.js';

const sample = (objects: number, objectBytes: number, contentValues = 0): CostSample => ({
  objects,
  objectBytes,
  contentValues,
  etcdBytes: 700 * objects + 1.2 * objectBytes,
  apiserverHeapBytes: 15000 * objects + 3 * objectBytes + 80 * contentValues,
});

describe('cost model', () => {
  it('fits per-object and per-byte coefficients from catalogs of different bytes per object', () => {
    const c = fitCostModel('t', { full: [sample(1106, 5_000_000), sample(925, 13_000_000)] });
    expect(c.profiles.full).to.deep.equal({
      etcdBytesPerObject: 700,
      etcdBytesPerObjectByte: 1.2,
      apiserverHeapBytesPerObject: 15000,
      apiserverHeapBytesPerObjectByte: 3,
      apiserverHeapBytesPerContentValue: 0,
    });
  });

  it('fits one heap floor per object, per byte and per JSON value for every profile at once', () => {
    // The lean catalogs alone have nearly the same bytes per object: their terms are found
    // with the full ones. A catalog of many small values (the second) costs more per byte.
    const c = fitCostModel('t', {
      full: [
        sample(1106, 5_000_000, 90_000),
        sample(925, 13_000_000, 240_000),
        sample(266, 20_000_000, 13_000),
      ],
      lean: [sample(1106, 2_400_000, 38_000), sample(925, 2_000_000, 67_000)],
    });
    for (const p of ['full', 'lean'] as const) {
      expect(c.profiles[p]).to.include({
        apiserverHeapBytesPerObject: 15000,
        apiserverHeapBytesPerObjectByte: 3,
        apiserverHeapBytesPerContentValue: 80,
      });
    }
  });

  it('fits fewer heap terms when a coefficient would be negative', () => {
    // Heap falling with the values: noise; the values term is left out (0).
    const noisy = [sample(1000, 4e6, 1000), sample(1000, 5e6, 50_000), sample(500, 6e6, 9000)];
    noisy[1]!.apiserverHeapBytes = 15000 * 1000 + 3 * 5e6;
    const c = fitCostModel('t', { full: noisy });
    expect(c.profiles.full?.apiserverHeapBytesPerContentValue).to.equal(0);
    expect(c.profiles.full?.apiserverHeapBytesPerObjectByte).to.be.greaterThan(0);
  });

  // The committed coefficients against the run they were fitted on (stop 31) and a later run
  // out of sample (2026-11-26: generated 5 MB, community and certified v4.20), bench/data:
  // heap within 25 % of measured on every catalog and profile (without the JSON-value term,
  // v4.20 full was 0.72 to 0.75 and certified v4.20 full 0.71), etcd within 6 %.
  for (const file of ['stop31-cost-samples.json', '2026-11-26-cost-samples.json']) {
    it(`predicts the catalogs of bench/data/${file} from the committed coefficients`, () => {
      const data = JSON.parse(
        readFileSync(path.resolve(import.meta.dirname, '../../bench/data', file), 'utf8'),
      ) as { samples: Record<ContentProfile, Array<CostSample & { catalog: string }>> };
      const off: string[] = [];
      for (const [profile, samples] of Object.entries(data.samples)) {
        for (const s of samples) {
          const p = predictCost(profile as ContentProfile, s)!;
          const heap = p.apiserverHeapBytes / s.apiserverHeapBytes;
          if (Math.abs(heap - 1) > 0.25) off.push(`${profile} ${s.catalog} heap ${heap}`);
          const etcd = p.etcdBytes / s.etcdBytes;
          if (Math.abs(etcd - 1) > 0.06) off.push(`${profile} ${s.catalog} etcd ${etcd}`);
        }
      }
      expect(off).to.deep.equal([]);
      expect(COST_MODEL.profiles.lean?.apiserverHeapBytesPerObject).to.be.greaterThan(0);
    });
  }

  it('counts every JSON value of the content once, none when it is omitted', () => {
    expect(countContentValues(undefined)).to.equal(0);
    expect(countContentValues({})).to.equal(1);
    // The object, a, its array and two numbers, b's object, null, and the string.
    expect(countContentValues({ a: [1, 2], b: { c: null, d: 'x' } })).to.equal(7);
    // A long array is walked without spreading it into one call's arguments.
    expect(countContentValues(new Array(300_000).fill(true))).to.equal(300_001);
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
      { objects: 1000, objectBytes: 4e6, contentValues: 0, etcdBytes: 8e6, apiserverHeapBytes: 0 },
      { objects: 1000, objectBytes: 5e6, contentValues: 0, etcdBytes: 20e6, apiserverHeapBytes: 0 },
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
          apiserverHeapBytesPerContentValue: 50,
        },
      },
    };
    const size = { objects: 3, objectBytes: 1000, contentValues: 20 };
    expect(predictCost('full', size, model)).to.deep.equal({
      etcdBytes: 2030,
      apiserverHeapBytes: 5300,
    });
    expect(predictCost('lean', size, model)).to.equal(undefined);
  });
});

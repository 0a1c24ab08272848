import { expect } from 'chai';
import type { CostModel, CostSample } from './cost-model.js';
import { fitCoefficients, fitLinear, predictCost } from './cost-model.js';

const sample = (objects: number, objectBytes: number): CostSample => ({
  objects,
  objectBytes,
  etcdBytes: 700 * objects + 1.2 * objectBytes,
  apiserverHeapBytes: 15000 * objects + 3 * objectBytes,
});

describe('cost model', () => {
  it('fits per-object and per-byte coefficients from catalogs of different bytes per object', () => {
    const c = fitCoefficients([sample(1106, 5_000_000), sample(925, 13_000_000)]);
    expect(c).to.deep.equal({
      etcdBytesPerObject: 700,
      etcdBytesPerObjectByte: 1.2,
      apiserverHeapBytesPerObject: 15000,
      apiserverHeapBytesPerObjectByte: 3,
    });
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

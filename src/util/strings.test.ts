import { expect } from 'chai';
import { detachString } from './strings.js';

describe('util/strings: detachString', () => {
  it('returns an equal string, for short, long, non-ASCII and lone-surrogate strings', () => {
    const doc = `name: ${'x'.repeat(4000)}\n`;
    for (const s of [
      '',
      'short',
      doc.slice(6, 40),
      'scale-workload-0496.v1.2.3',
      'ünïcødé-name-😀-long-enough',
      'lone \ud800 surrogate and more',
    ]) {
      expect(detachString(s)).to.equal(s);
    }
  });
});

import { expect } from 'chai';
import { humanDuration } from './human-duration.js';

describe('humanDuration', () => {
  const durations: Array<[number, string]> = [
    [-5_000, '<invalid>'],
    [-500, '0s'],
    [59_000, '59s'],
    [119_000, '119s'],
    [125_000, '2m5s'],
    [600_000, '10m'],
    [3 * 3600_000 + 5 * 60_000, '3h5m'],
    [30 * 3600_000, '30h'],
    [50 * 3600_000, '2d2h'],
    [20 * 86400_000, '20d'],
    [800 * 86400_000, '2y70d'],
    [9 * 365 * 86400_000, '9y'],
  ];
  for (const [ms, text] of durations)
    it(`shows ${ms} ms as ${text} (apimachinery's HumanDuration)`, () =>
      expect(humanDuration(ms)).to.equal(text));

  it('says how long ago as kubectl get does', () => {
    const s = 1000;
    expect(humanDuration(-5 * s)).to.equal('<invalid>');
    expect(humanDuration(-500)).to.equal('0s');
    expect(humanDuration(119 * s)).to.equal('119s');
    expect(humanDuration(125 * s)).to.equal('2m5s');
    expect(humanDuration(600 * s)).to.equal('10m');
    expect(humanDuration(3 * 3600 * s)).to.equal('3h');
    expect(humanDuration((3 * 3600 + 60) * s)).to.equal('3h1m');
    expect(humanDuration(10 * 3600 * s)).to.equal('10h');
    expect(humanDuration(50 * 3600 * s)).to.equal('2d2h');
    expect(humanDuration(30 * 24 * 3600 * s)).to.equal('30d');
    expect(humanDuration(3 * 365 * 24 * 3600 * s)).to.equal('3y');
    expect(humanDuration((3 * 365 + 4) * 24 * 3600 * s)).to.equal('3y4d');
  });
});

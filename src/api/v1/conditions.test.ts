import { expect } from 'chai';
import {
  REASON_AVAILABLE,
  REASON_RETRYING,
  REASON_SUCCEEDED,
  REASON_UNAVAILABLE,
  TYPE_PROGRESSING,
  TYPE_SERVING,
  findCondition,
  formatTime,
  isConditionTrue,
  setCondition,
} from './conditions.js';
import type { Condition } from './conditions.js';

const T0 = new Date('2026-01-02T03:04:05.678Z');
const T1 = new Date('2026-01-02T04:00:00.000Z');

const serving = (
  status: 'True' | 'False',
  reason: string,
  message: string,
  observedGeneration = 1,
) => ({
  type: TYPE_SERVING,
  status,
  reason,
  message,
  observedGeneration,
});

describe('conditions', () => {
  it('formats time as metav1.Time does (whole seconds, Z)', () => {
    expect(formatTime(T0)).to.equal('2026-01-02T03:04:05Z');
  });

  it('adds a new condition with lastTransitionTime = now', () => {
    const r = setCondition(undefined, serving('False', REASON_UNAVAILABLE, 'no content yet'), T0);
    expect(r.changed).to.equal(true);
    expect(r.conditions).to.deep.equal([
      {
        ...serving('False', REASON_UNAVAILABLE, 'no content yet'),
        lastTransitionTime: '2026-01-02T03:04:05Z',
      },
    ]);
  });

  it('keeps lastTransitionTime when only reason, message or observedGeneration change', () => {
    const first = setCondition([], serving('True', REASON_AVAILABLE, 'serving a'), T0).conditions;
    const r = setCondition(first, serving('True', REASON_AVAILABLE, 'serving b', 2), T1);
    expect(r.changed).to.equal(true);
    expect(r.conditions[0]).to.include({
      message: 'serving b',
      observedGeneration: 2,
      lastTransitionTime: '2026-01-02T03:04:05Z',
    });
  });

  it('moves lastTransitionTime when the status changes', () => {
    const first = setCondition([], serving('False', REASON_UNAVAILABLE, 'x'), T0).conditions;
    const r = setCondition(first, serving('True', REASON_AVAILABLE, 'y'), T1);
    expect(r.conditions[0]?.lastTransitionTime).to.equal('2026-01-02T04:00:00Z');
  });

  it('reports no change for an identical update, so that no status write is needed', () => {
    const first = setCondition([], serving('False', REASON_UNAVAILABLE, 'same'), T0).conditions;
    const r = setCondition(first, serving('False', REASON_UNAVAILABLE, 'same'), T1);
    expect(r.changed).to.equal(false);
    expect(r.conditions).to.deep.equal(first);
  });

  it('does not modify its input and keeps the order of other conditions', () => {
    const input: Condition[] = [
      { ...serving('True', REASON_AVAILABLE, 'a'), lastTransitionTime: '2026-01-01T00:00:00Z' },
      {
        type: TYPE_PROGRESSING,
        status: 'True',
        reason: REASON_SUCCEEDED,
        message: 'done',
        observedGeneration: 1,
        lastTransitionTime: '2026-01-01T00:00:00Z',
      },
    ];
    const snapshot = structuredClone(input);
    const r = setCondition(
      input,
      {
        type: TYPE_PROGRESSING,
        status: 'True',
        reason: REASON_RETRYING,
        message: 'pull failed',
        observedGeneration: 1,
      },
      T1,
    );
    expect(input).to.deep.equal(snapshot);
    expect(r.conditions.map((c) => c.type)).to.deep.equal([TYPE_SERVING, TYPE_PROGRESSING]);
    expect(r.conditions[1]).to.include({
      reason: REASON_RETRYING,
      lastTransitionTime: '2026-01-01T00:00:00Z',
    });
  });

  it('finds conditions by type', () => {
    const list = setCondition([], serving('True', REASON_AVAILABLE, 'a'), T0).conditions;
    expect(findCondition(list, TYPE_SERVING)?.reason).to.equal(REASON_AVAILABLE);
    expect(findCondition(list, TYPE_PROGRESSING)).to.equal(undefined);
    expect(findCondition(undefined, TYPE_SERVING)).to.equal(undefined);
    expect(isConditionTrue(list, TYPE_SERVING)).to.equal(true);
    expect(isConditionTrue(list, TYPE_PROGRESSING)).to.equal(false);
  });
});

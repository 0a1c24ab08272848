import { expect } from 'chai';
import { abortError, abortGroups, isNetworkError } from './errors.js';

describe('kube/errors: aborts', () => {
  it('ends every request under a signal with one listener, and only those still in flight', () => {
    const ended: Array<[string, string]> = [];
    const under = abortGroups<string>((item, err) => ended.push([item, err.name]));
    const ac = new AbortController();
    let listeners = 0;
    const add = ac.signal.addEventListener.bind(ac.signal);
    ac.signal.addEventListener = (...args: Parameters<typeof add>) => {
      listeners++;
      add(...args);
    };
    for (const r of ['a', 'b', 'c']) under(ac.signal).add(r);
    under(ac.signal).delete('b'); // answered before the abort
    ac.abort(new Error('shutting down'));
    expect(listeners).to.equal(1);
    expect(ended).to.deep.equal([
      ['a', 'AbortError'],
      ['c', 'AbortError'],
    ]);
    expect(under(ac.signal).size).to.equal(0);
  });

  it('says an abort is an abort, with its reason, and not a network error to retry', () => {
    const ac = new AbortController();
    ac.abort(new Error('lost the lease'));
    const err = abortError(ac.signal);
    expect([err.name, (err as Error & { code: string }).code]).to.deep.equal([
      'AbortError',
      'ABORT_ERR',
    ]);
    expect((err.cause as Error).message).to.equal('lost the lease');
    expect(isNetworkError(err)).to.equal(false);
  });
});

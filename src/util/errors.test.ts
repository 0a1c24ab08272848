import { expect } from 'chai';
import {
  causes,
  contentFault,
  errorChain,
  errorCode,
  findInChain,
  isTerminal,
  TerminalError,
  withContentFinality,
} from './errors.js';

describe('util/errors', () => {
  class Marked extends Error {}

  it('a content fault is final under a digest and retryable under a tag, with its message', () => {
    const fault = Object.assign(new Error('layer 1: invalid tar archive'), { contentFault: true });
    const err = new Error('pull x: layer 1: invalid tar archive', { cause: fault });
    expect(contentFault(err)).to.equal(fault);
    expect(isTerminal(withContentFinality(err, true))).to.equal(true);
    const underTag = withContentFinality(TerminalError.wrap(err), false) as Error;
    expect(isTerminal(underTag)).to.equal(false);
    expect(underTag.message).to.equal(err.message);
    expect(contentFault(underTag)).to.equal(fault);
    const other = new Error('registry unreachable');
    expect(withContentFinality(other, true)).to.equal(other);
  });

  it('finds a TerminalError anywhere in the cause chain', () => {
    const inner = TerminalError.wrap(new Error('no such digest'));
    expect(isTerminal(inner)).to.equal(true);
    expect(isTerminal(new Error('pull failed', { cause: inner }))).to.equal(true);
    expect(isTerminal(new Error('registry unreachable'))).to.equal(false);
    expect(isTerminal(undefined)).to.equal(false);
  });

  it('walks causes outermost first and finds the first of a type', () => {
    const marked = new Marked('inner');
    const err = new Error('outer', { cause: marked });
    expect([...causes(err)]).to.deep.equal([err, marked]);
    expect(findInChain(err, Marked)).to.equal(marked);
    expect(findInChain(new Error('x'), Marked)).to.equal(undefined);
  });

  it('stops at a cyclic chain', () => {
    const a = new Error('a');
    const b = new Error('b', { cause: a });
    a.cause = b;
    expect([...causes(a)]).to.have.length(16);
  });

  it('says each message of the chain once; a TerminalError wrapper adds nothing', () => {
    const io = Object.assign(new Error('too many open files'), { code: 'EMFILE' });
    const err = new Error('a.json: cannot read', { cause: TerminalError.wrap(io) });
    expect(errorChain(err)).to.equal('a.json: cannot read: too many open files');
    expect(errorCode(err)).to.equal('EMFILE');
    expect(errorCode(new Error('x'))).to.equal(undefined);
  });
});

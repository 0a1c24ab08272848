import { expect } from 'chai';
import { causes, errorChain, errorCode, findInChain, isTerminal, TerminalError } from './errors.js';

describe('util/errors', () => {
  class Marked extends Error {}

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

import { expect } from 'chai';
import { isTerminal, withContentFinality } from '../util/errors.js';
import { findSourceError, retryable, terminal } from './errors.js';

describe('source/errors: the finality of content errors', () => {
  const invalid = new Error('pull x: layer 1: invalid tar archive', {
    cause: terminal('InvalidLayer', 'layer 1: invalid tar archive'),
  });
  const mismatch = retryable('DigestMismatch', 'layer 1: digest mismatch');
  const network = retryable('Unavailable', 'registry unreachable (ECONNRESET)');

  it('a content error is final under a digest: a mismatch becomes terminal, an invalid layer stays', () => {
    expect(isTerminal(withContentFinality(mismatch, true))).to.equal(true);
    expect(withContentFinality(invalid, true)).to.equal(invalid);
  });

  it('under a tag it is retryable, with the same message and code', () => {
    const e = withContentFinality(invalid, false) as Error;
    expect(isTerminal(e)).to.equal(false);
    expect(e.message).to.equal(invalid.message);
    expect(findSourceError(e)?.code).to.equal('InvalidLayer');
    expect(withContentFinality(mismatch, false)).to.equal(mismatch);
  });

  it('other errors keep their finality', () => {
    expect(withContentFinality(network, true)).to.equal(network);
    const gone = terminal('NotFound', 'manifest unknown');
    expect(withContentFinality(gone, false)).to.equal(gone);
  });
});

import { expect } from 'chai';
import { isTerminal } from '../util/errors.js';
import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { digestOf, VerifyingStream } from './digest.js';
import { findSourceError } from './errors.js';

async function run(data: Buffer, digest: string, size?: number): Promise<unknown> {
  const sink = new Writable({ write: (_c, _e, cb) => cb() });
  return pipeline(
    Readable.from([data.subarray(0, 3), data.subarray(3)]),
    new VerifyingStream(digest, size, 'blob'),
    sink,
  ).then(
    () => undefined,
    (e: unknown) => e,
  );
}

describe('source/digest', () => {
  const data = Buffer.from('hello catalog');
  const d = digestOf(data);

  it('accepts matching content', async () => {
    expect(await run(data, d, data.length)).to.equal(undefined);
    expect(await run(data, digestOf(data, 'sha512'))).to.equal(undefined);
  });

  it('rejects a wrong digest or size, retryably', async () => {
    const flipped = Buffer.from(data);
    flipped[0] = flipped[0]! ^ 1;
    const err1 = await run(flipped, d, data.length);
    expect(findSourceError(err1)?.code).to.equal('DigestMismatch');
    expect(isTerminal(err1)).to.equal(false);
    expect(findSourceError(await run(data, d, data.length - 1))?.code).to.equal('SizeMismatch');
    expect(findSourceError(await run(data, d, data.length + 1))?.code).to.equal('SizeMismatch');
  });
});

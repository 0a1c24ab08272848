import { expect } from 'chai';
import { CommandError } from '../util/command-error.js';
import { listenFailure, listening } from './listen-failure.js';

/** An error as node:net reports a failed listen. */
function listenError(code: string): Error {
  return Object.assign(new Error(`listen ${code}: 127.0.0.1:8080`), { code, syscall: 'listen' });
}

describe('cmd/listen-failure: listenFailure', () => {
  it('names the address, the flag and how to choose another', () => {
    const err = listenFailure(listenError('EADDRINUSE'), 'metrics-addr', '127.0.0.1:8080');
    expect(err).to.be.instanceOf(CommandError);
    expect((err as Error).message).to.equal(
      'cannot listen on 127.0.0.1:8080 for --metrics-addr: address already in use; ' +
        'choose another with --metrics-addr',
    );
    const denied = listenFailure(listenError('EACCES'), 'health-addr', ':81') as Error;
    expect(denied.message).to.equal(
      'cannot listen on :81 for --health-addr: permission denied; choose another with --health-addr',
    );
  });

  it('leaves other errors as they are', async () => {
    const other = Object.assign(new Error('ENOENT'), { code: 'ENOENT', syscall: 'open' });
    expect(listenFailure(other, 'server-addr', ':8090')).to.equal(other);
    const failed = await listening('server-addr', ':8090', () => Promise.reject(other)).catch(
      (err: unknown) => err,
    );
    expect(failed).to.equal(other);
  });
});

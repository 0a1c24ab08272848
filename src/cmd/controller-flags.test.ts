import { expect } from 'chai';
import { CommandError } from '../util/command-error.js';
import { main } from './controller.js';

describe('cmd/controller: flags', () => {
  it('refuses a --content-profile that names no profile, before starting anything', async () => {
    const err = await main(['--content-profile', 'medium']).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).to.be.instanceOf(CommandError);
    expect((err as Error).message).to.equal(
      '--content-profile must be full, lean or none, not "medium"',
    );
  });
});

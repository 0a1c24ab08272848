// Reloading the policy file on the injected clock: a change (of the file or of a key file it
// names) puts the new policy in force; one that does not parse keeps the old and is reported once.
import { expect } from 'chai';
import { ManualClock } from '../../util/clock.js';
import { testKey } from '../../../test/support/signatures.js';
import { PolicyFile } from './policy-file.js';
import { PolicyError } from './policy.js';

describe('signature policy file', () => {
  it('reloads on change, keeps the old policy when the new one is bad, and re-reads key files', async () => {
    const files = new Map<string, string>([
      ['/p.json', JSON.stringify({ default: [{ type: 'reject' }] })],
      ['/k.pub', testKey('p256').publicPem],
    ]);
    const readFile = async (p: string) => Buffer.from(files.get(p) ?? '');
    const file = await PolicyFile.open('/p.json', readFile);
    const events: string[] = [];
    const hooks = {
      onChange: () => events.push('change'),
      onError: (err: PolicyError) => events.push(err.message),
    };
    const clock = new ManualClock();
    const stop = file.watch(clock, 1000, hooks);
    const tick = async () => {
      await clock.advance(1000);
      for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
    };
    const first = file.current();
    await tick();
    expect(events).to.deep.equal([]);
    expect(file.current()).to.equal(first);

    files.set('/p.json', '{"default": [');
    await tick();
    await tick();
    expect(events).to.have.length(1);
    expect(events[0]).to.match(/^signature policy: invalid JSON/);
    expect(file.current()).to.equal(first);
    expect(file.reloads).to.deep.equal({ applied: 0, failed: 1 });

    files.set(
      '/p.json',
      JSON.stringify({ default: [{ type: 'sigstoreSigned', keyPath: '/k.pub' }] }),
    );
    await tick();
    expect(events.slice(1)).to.deep.equal(['change']);
    const second = file.current();
    expect(second.default[0]?.type).to.equal('sigstoreSigned');

    files.set('/k.pub', testKey('p256').publicPem);
    await tick();
    expect(events.slice(2)).to.deep.equal(['change']);
    expect(file.current()).to.not.equal(second);
    expect(file.reloads).to.deep.equal({ applied: 2, failed: 1 });
    stop();
  });

  it('refuses a bad file at start-up with a message, not a stack trace', async () => {
    const err = await PolicyFile.open('/missing', async () => {
      throw Object.assign(new Error('x'), { code: 'ENOENT' });
    }).catch((e: unknown) => e);
    expect(err).to.be.instanceOf(PolicyError);
    expect((err as Error).message).to.equal('signature policy: cannot read /missing (ENOENT)');
  });
});

// Reloading the certificate on the injected clock: new file content that can serve is applied;
// content that cannot (another certificate's key, expired) keeps the previous pair and is
// reported once, not at every poll; a pair read across a swap is read again before refusing.
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { ManualClock } from '../util/clock.js';
import { ServingCertificate } from './tls-reload.js';
import type { ServingPair, TlsPairError } from './tls.js';
import { checkPair } from './tls.js';

const fixture = (f: string) =>
  readFileSync(new URL(`../../test/fixtures/tls/${f}`, import.meta.url));
const files = { certFile: '/tls/tls.crt', keyFile: '/tls/tls.key' };

function setUp() {
  const disk = new Map<string, Buffer>([
    [files.certFile, fixture('a.crt')],
    [files.keyFile, fixture('a.key')],
  ]);
  let reads = 0;
  const readFile = (p: string) => {
    reads++;
    return Promise.resolve(disk.get(p) ?? Buffer.alloc(0));
  };
  const clock = new ManualClock(new Date('2030-06-01T00:00:00Z'));
  const first = checkPair(files, fixture('a.crt'), fixture('a.key'), clock.date());
  const cert = new ServingCertificate(files, first, clock, readFile);
  const events: string[] = [];
  const hooks = {
    apply: (p: ServingPair) => void events.push(`apply ${p.serial}`),
    onError: (err: TlsPairError) => void events.push(err.message),
  };
  const tick = async () => {
    await clock.advance(1000);
    for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
  };
  return { disk, cert, events, hooks, clock, tick, first, reads: () => reads };
}

describe('serving certificate reload', () => {
  it('applies a new pair, keeps the old one for a broken pair (reported once), then applies a fixed one', async () => {
    const { disk, cert, events, hooks, clock, tick, first } = setUp();
    const b = checkPair(files, fixture('b.crt'), fixture('b.key'), clock.date());
    const stop = cert.watch(clock, 1000, hooks);
    await tick();
    expect(events).to.deep.equal([]);

    disk.set(files.certFile, fixture('b.crt')); // the key of a, the certificate of b
    await tick();
    await tick();
    expect(events).to.deep.equal([
      '--tls-key-file /tls/tls.key is not the key of the certificate in --tls-cert-file /tls/tls.crt',
    ]);
    expect(cert.current().serial).to.equal(first.serial);
    expect(cert.reloads).to.deep.equal({ applied: 0, failed: 1 });

    disk.set(files.keyFile, fixture('b.key'));
    await tick();
    expect(events.slice(1)).to.deep.equal([`apply ${b.serial}`]);
    expect(cert.current().serial).to.equal(b.serial);
    expect(cert.reloads).to.deep.equal({ applied: 1, failed: 1 });
    stop();
  });

  it('refuses a pair that is expired at the clock time', async () => {
    const { disk, cert, events, hooks, clock } = setUp();
    disk.set(files.certFile, fixture('b.crt'));
    disk.set(files.keyFile, fixture('b.key'));
    await clock.advance(300 * 365 * 24 * 3600 * 1000);
    await cert.reload(hooks);
    expect(events).to.have.length(1);
    expect(events[0]).to.match(/expired at/);
    expect(cert.reloads.failed).to.equal(1);
  });

  it('keeps the old pair when the new one cannot be applied', async () => {
    const { disk, cert, events } = setUp();
    disk.set(files.certFile, fixture('b.crt'));
    disk.set(files.keyFile, fixture('b.key'));
    await cert.reload({
      apply: () => {
        throw new Error('bad context');
      },
      onError: (err) => void events.push(err.message),
    });
    expect(events).to.deep.equal(['--tls-cert-file /tls/tls.crt: Error: bad context']);
    expect(cert.reloads).to.deep.equal({ applied: 0, failed: 1 });
  });

  it('reads an unchanged pair without applying it', async () => {
    const { cert, events, hooks, reads } = setUp();
    await cert.reload(hooks);
    expect(events).to.deep.equal([]);
    expect(reads()).to.equal(2);
  });
});

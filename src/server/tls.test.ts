// The checks of a serving pair: one that cannot serve (another certificate's key, expired, not yet
// valid, not PEM, unreadable) is a one-line TlsPairError naming the flag and the file.
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { TlsPairError, checkPair, loadServingPair } from './tls.js';

const fixture = (f: string) =>
  readFileSync(new URL(`../../test/fixtures/tls/${f}`, import.meta.url));
const files = { certFile: '/tls/tls.crt', keyFile: '/tls/tls.key' };
const now = new Date('2030-06-01T00:00:00Z');

function refusal(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    expect(err).to.be.instanceOf(TlsPairError);
    return (err as Error).message;
  }
  throw new Error('no error');
}

describe('serving pair checks', () => {
  it('accepts a certificate with its key, with its serial and expiry', () => {
    const pair = checkPair(files, fixture('a.crt'), fixture('a.key'), now);
    expect(pair.serial).to.match(/^[0-9A-F]+$/);
    expect(pair.notAfter.getTime()).to.be.greaterThan(now.getTime());
    const b = checkPair(files, fixture('b.crt'), fixture('b.key'), now);
    expect(b.serial).to.not.equal(pair.serial);
    expect(b.fingerprint).to.not.equal(pair.fingerprint);
  });

  it('refuses a key of another certificate, in one line naming both files', () => {
    const msg = refusal(() => checkPair(files, fixture('a.crt'), fixture('b.key'), now));
    expect(msg).to.equal(
      '--tls-key-file /tls/tls.key is not the key of the certificate in --tls-cert-file /tls/tls.crt',
    );
  });

  it('refuses an expired and a not yet valid certificate at the given time', () => {
    const expired = refusal(() =>
      checkPair(files, fixture('a.crt'), fixture('a.key'), new Date('2300-01-01T00:00:00Z')),
    );
    expect(expired).to.match(
      /^--tls-cert-file \/tls\/tls\.crt: the certificate \(serial [0-9A-F]+\) expired at \d{4}-/,
    );
    const early = refusal(() =>
      checkPair(files, fixture('a.crt'), fixture('a.key'), new Date('2000-01-01T00:00:00Z')),
    );
    expect(early).to.match(/is not valid before \d{4}-/);
    for (const m of [expired, early]) expect(m).to.not.include('\n');
  });

  it('refuses what is not PEM', () => {
    expect(refusal(() => checkPair(files, Buffer.from('x'), fixture('a.key'), now))).to.equal(
      '--tls-cert-file /tls/tls.crt: not a PEM certificate',
    );
    expect(refusal(() => checkPair(files, fixture('a.crt'), fixture('a.crt'), now))).to.equal(
      '--tls-key-file /tls/tls.key: not a PEM private key',
    );
  });

  it('says which file cannot be read', async () => {
    const readFile = (p: string) =>
      p === files.certFile
        ? Promise.resolve(fixture('a.crt'))
        : Promise.reject(Object.assign(new Error('no'), { code: 'ENOENT' }));
    const err = await loadServingPair(files, now, readFile).catch((e: unknown) => e);
    expect((err as Error).message).to.equal('--tls-key-file /tls/tls.key: cannot read it (ENOENT)');
  });
});

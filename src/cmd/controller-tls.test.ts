// The TLS flags of `catalogd controller`: both or neither, an interval of at least 1s, a pair that
// cannot serve as a one-line CommandError, and no http:// --server-url with TLS on.
import { expect } from 'chai';
import { fileURLToPath } from 'node:url';
import { ManualClock } from '../util/clock.js';
import { CommandError } from '../util/command-error.js';
import { checkServerUrlScheme, servingTlsFromFlags } from './controller-tls.js';

const fixture = (f: string) =>
  fileURLToPath(new URL(`../../test/fixtures/tls/${f}`, import.meta.url));
const clock = new ManualClock(new Date('2030-01-01T00:00:00Z'));

async function refusal(flags: Parameters<typeof servingTlsFromFlags>[0]): Promise<string> {
  const err = await servingTlsFromFlags(flags, clock).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).to.be.instanceOf(CommandError);
  return (err as Error).message;
}

describe('controller TLS flags', () => {
  it('is off without the flags, and on with a pair that serves', async () => {
    expect(await servingTlsFromFlags({ 'tls-reload-interval': '10s' }, clock)).to.equal(undefined);
    const tls = await servingTlsFromFlags(
      {
        'tls-cert-file': fixture('a.crt'),
        'tls-key-file': fixture('a.key'),
        'tls-reload-interval': '2s',
      },
      clock,
    );
    expect(tls?.intervalMs).to.equal(2000);
    expect(tls?.certificate.current().serial).to.match(/^[0-9A-F]+$/);
  });

  it('refuses one flag alone, a short interval and a mismatched pair, in one line', async () => {
    expect(
      await refusal({ 'tls-cert-file': fixture('a.crt'), 'tls-reload-interval': '10s' }),
    ).to.equal('--tls-cert-file and --tls-key-file go together: give both or neither');
    expect(
      await refusal({
        'tls-cert-file': fixture('a.crt'),
        'tls-key-file': fixture('a.key'),
        'tls-reload-interval': '10ms',
      }),
    ).to.equal('--tls-reload-interval must be a duration of at least 1s');
    expect(
      await refusal({
        'tls-cert-file': fixture('a.crt'),
        'tls-key-file': fixture('b.key'),
        'tls-reload-interval': '10s',
      }),
    ).to.equal(
      `--tls-key-file ${fixture('b.key')} is not the key of the certificate in --tls-cert-file ${fixture('a.crt')}`,
    );
  });

  it('refuses an http:// --server-url with TLS on, and nothing else', () => {
    expect(() => checkServerUrlScheme('http://svc:80', true)).to.throw(
      CommandError,
      '--server-url http://svc:80: the content server serves HTTPS (--tls-cert-file): want an https:// URL',
    );
    checkServerUrlScheme('https://svc:443', true);
    checkServerUrlScheme('https://ingress.example', false);
    checkServerUrlScheme(undefined, true);
  });
});

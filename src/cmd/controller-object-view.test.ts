// --object-view and --api-listen: crd by default (unchanged behaviour), served with an HTTPS
// address and the serving certificate; each mistake one line naming the flag.
import { expect } from 'chai';
import { CommandError } from '../util/command-error.js';
import { parseControllerOptions } from './controller-options.js';

const parse = (...args: string[]) => parseControllerOptions(args)!;
const tls = ['--tls-cert-file', 'tls.crt', '--tls-key-file', 'tls.key'];

describe('cmd/controller-object-view: --object-view and --api-listen', () => {
  it('is crd by default, and crd when said', () => {
    expect(parse().objectView).to.deep.equal({ view: 'crd' });
    expect(parse('--object-view=crd').objectView).to.deep.equal({ view: 'crd' });
  });

  it('serves on --api-listen with the serving certificate', () => {
    expect(parse('--object-view=served', '--api-listen=:9443', ...tls).objectView).to.deep.equal({
      view: 'served',
      apiListen: { host: '0.0.0.0', port: 9443 },
    });
    expect(
      parse('--object-view', 'served', '--api-listen', '127.0.0.1:0', ...tls).objectView,
    ).to.deep.equal({ view: 'served', apiListen: { host: '127.0.0.1', port: 0 } });
  });

  const mistakes: Array<[string[], string]> = [
    [['--object-view=etcd'], '--object-view must be crd or served, not "etcd"'],
    [
      ['--object-view=served', ...tls],
      '--object-view=served needs --api-listen HOST:PORT: the address the APIService reaches the served API at, e.g. :9443',
    ],
    [
      ['--object-view=served', '--api-listen=:9443'],
      '--object-view=served needs --tls-cert-file and --tls-key-file: the aggregation layer reaches the served API over HTTPS',
    ],
    [
      ['--api-listen=:9443'],
      "--api-listen is the served API's address: it goes with --object-view=served",
    ],
    [
      ['--object-view=served', '--api-listen=9443', ...tls],
      '--api-listen: invalid address "9443": want HOST:PORT or :PORT',
    ],
  ];
  for (const [args, message] of mistakes) {
    it(`refuses ${args.join(' ')}`, () => {
      expect(() => parse(...args)).to.throw(CommandError, message);
      try {
        parse(...args);
      } catch (err) {
        expect((err as Error).message).to.equal(message);
      }
    });
  }
});

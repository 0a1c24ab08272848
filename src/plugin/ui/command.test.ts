import { expect } from 'chai';
import {
  FIXTURE_BLOBS,
  FIXTURE_CATALOG,
  catalogsClient,
} from '../../../test/support/kubectl-catalog-fixture.js';
import { pollUntil } from '../../../test/support/poll.js';
import { parseAddress, runUi } from './command.js';

describe('kubectl catalog ui command', () => {
  it('parses --address', () => {
    expect(parseAddress('127.0.0.1:8080')).to.deep.equal({ host: '127.0.0.1', port: 8080 });
    expect(parseAddress(':0')).to.deep.equal({ host: '127.0.0.1', port: 0 });
    expect(parseAddress('[::1]:9000')).to.deep.equal({ host: '::1', port: 9000 });
    expect(parseAddress('localhost')).to.equal(undefined);
    expect(parseAddress('127.0.0.1:70000')).to.equal(undefined);
  });

  it('rejects a bad --address and unknown flags with exit code 2', async () => {
    const err: string[] = [];
    const io = { stdout: () => undefined, stderr: (s: string) => err.push(s) };
    expect(await runUi(['--address', 'nope'], io)).to.equal(2);
    expect(err.join('')).to.contain('--address nope');
    expect(await runUi(['--bogus'], io)).to.equal(2);
    expect(await runUi(['--server-url', 'localhost 8090'], io)).to.equal(2);
    expect(err.join('')).to.contain('--server-url localhost 8090: not a URL');
  });

  it('prints its help', async () => {
    const out: string[] = [];
    expect(
      await runUi(['--help'], { stdout: (s) => out.push(s), stderr: () => undefined }),
    ).to.equal(0);
    expect(out.join('')).to.contain('--no-open');
    expect(out.join('')).to.contain('--server-url URL');
  });

  it('warns at start, saying why, when the cluster serves both object views', async () => {
    const err: string[] = [];
    let stop = () => {};
    const done = runUi(['--no-open'], {
      stdout: () => undefined,
      stderr: (s) => err.push(s),
      stopped: new Promise((r) => (stop = () => r(undefined))),
      client: () =>
        catalogsClient([{ name: FIXTURE_CATALOG, blobs: FIXTURE_BLOBS }], undefined, undefined, [
          'crd',
          'served',
        ]).client,
    });
    try {
      const warning = await pollUntil(() => Promise.resolve(err.join('') || undefined), {
        timeoutMs: 10_000,
        what: 'the warning',
      });
      expect(warning).to.match(/^warning: both olm\.operatorframework\.io\/v1 .* served view/);
    } finally {
      stop();
      expect(await done).to.equal(0);
    }
  });

  it('refuses another --object-view value', async () => {
    const err: string[] = [];
    const io = { stdout: () => undefined, stderr: (s: string) => err.push(s) };
    expect(await runUi(['--object-view', 'etcd'], io)).to.equal(2);
    expect(err.join('')).to.equal('error: --object-view etcd: one of crd, served\n');
  });
});

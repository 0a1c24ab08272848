import { expect } from 'chai';
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
});

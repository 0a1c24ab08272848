// The requestheader settings polled from the ConfigMap: applied at the first read and on a
// change only; a failed read or unusable settings keep the previous ones and are reported once.
import { expect } from 'chai';
import type { RequestHeaderConfig } from '../front/index.js';
import { RequestHeaderSettings } from './authentication-config.js';

describe('apiserver/setup/authentication-config', () => {
  let data: Record<string, string> | undefined | Error;
  let applied: Array<RequestHeaderConfig | undefined>;
  let errors: string[];
  let settings: RequestHeaderSettings;

  beforeEach(() => {
    applied = [];
    errors = [];
    data = { 'requestheader-client-ca-file': 'CA1', 'requestheader-allowed-names': '["fp"]' };
    settings = new RequestHeaderSettings(
      () => (data instanceof Error ? Promise.reject(data) : Promise.resolve(data)),
      (c) => {
        if (c?.clientCA === 'BAD')
          throw new Error('the front-proxy client CA bundle holds no certificate');
        applied.push(c);
      },
      { info: () => {}, error: (o) => errors.push((o as { reason: string }).reason) },
    );
  });

  it('applies the settings at the first read, and again only when they change', async () => {
    await settings.load();
    await settings.load();
    expect(applied.map((c) => c?.clientCA)).to.deep.equal(['CA1']);
    expect(applied[0]?.allowedNames).to.deep.equal(['fp']);
    data = { 'requestheader-client-ca-file': 'CA2' };
    await settings.load();
    expect(applied.map((c) => c?.clientCA)).to.deep.equal(['CA1', 'CA2']);
    data = undefined;
    await settings.load();
    expect(applied).to.have.length(3);
    expect(applied[2]).to.equal(undefined);
  });

  it('keeps the previous settings when a read fails or they cannot be used, said once', async () => {
    await settings.load();
    data = new Error('connect ECONNREFUSED');
    await settings.load();
    await settings.load();
    data = { 'requestheader-client-ca-file': 'BAD' };
    await settings.load();
    await settings.load();
    data = { 'requestheader-client-ca-file': 'CA1', 'requestheader-allowed-names': 'fp' };
    await settings.load();
    expect(applied.map((c) => c?.clientCA)).to.deep.equal(['CA1']);
    expect(errors).to.deep.equal([
      'connect ECONNREFUSED',
      'the front-proxy client CA bundle holds no certificate',
      'requestheader-allowed-names is not a JSON list of strings',
    ]);
  });
});

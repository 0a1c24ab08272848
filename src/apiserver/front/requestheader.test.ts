// Requestheader authentication without a listener: the user read from the headers as
// headerrequest reads them (first user name, every group, extra keys lower-cased and
// %-unescaped), and the headers ignored unless the chain verifies against the CA with an
// allowed CN; the ConfigMap's data read with kube-apiserver's defaults.
import { expect } from 'chai';
import { X509Certificate } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { makeTestPki } from '../../../test/support/test-pki.js';
import { requestHeaderConfigFromData } from './requestheader-config.js';
import {
  RequestHeaderAuthenticator,
  RequestHeaderConfigError,
  userFromHeaders,
  verifyClientChain,
} from './requestheader.js';

const headerNames = {
  usernameHeaders: ['X-Remote-User', 'X-Other-User'],
  uidHeaders: ['X-Remote-Uid'],
  groupHeaders: ['X-Remote-Group', 'X-Other-Group'],
  extraHeaderPrefixes: ['X-Remote-Extra-'],
};

describe('apiserver/front/requestheader', () => {
  describe('userFromHeaders', () => {
    it('reads the first user name, every non-empty group, the uid and the extra', () => {
      expect(
        userFromHeaders(
          {
            'x-remote-user': ['', 'ignored'],
            'x-other-user': ['bob', 'carol'],
            'x-remote-group': ['a', '', 'b'],
            'x-other-group': ['c'],
            'x-remote-uid': ['u-9'],
            'x-remote-extra-scopes': ['s1', 's2'],
            'x-remote-extra-example.org%2fkey': ['v'],
            'x-remote-extra-bad%zz': ['w'],
            'x-unrelated': ['z'],
          },
          headerNames,
        ),
      ).to.deep.equal({
        name: 'bob',
        uid: 'u-9',
        groups: ['a', 'b', 'c', 'system:authenticated'],
        extra: { scopes: ['s1', 's2'], 'example.org/key': ['v'], 'bad%zz': ['w'] },
      });
    });

    it('puts every user in system:authenticated once, as the apiserver does (RBAC binds discovery to it)', () => {
      expect(
        userFromHeaders({ 'x-remote-user': ['system:aggregator'] }, headerNames),
      ).to.deep.equal({ name: 'system:aggregator', groups: ['system:authenticated'], extra: {} });
      const again = userFromHeaders(
        { 'x-remote-user': ['u'], 'x-remote-group': ['system:authenticated'] },
        headerNames,
      );
      expect(again?.groups).to.deep.equal(['system:authenticated']);
    });

    it('names no user without a user name header', () => {
      expect(userFromHeaders({ 'x-remote-group': ['a'] }, headerNames)).to.equal(undefined);
    });
  });

  describe('certificates', function () {
    this.timeout(30_000);
    let dir: string;
    let ca: string;
    let otherCa: string;
    const chain = async (d: string, name: string) => [
      new X509Certificate(await readFile(path.join(d, `${name}.crt`))),
    ];

    before(async () => {
      dir = await mkdtemp(path.join(os.tmpdir(), 'requestheader-'));
      await mkdir(path.join(dir, 'a'));
      await mkdir(path.join(dir, 'b'));
      await makeTestPki(path.join(dir, 'a'), ['front-proxy-client']);
      await makeTestPki(path.join(dir, 'b'), ['front-proxy-client']);
      ca = (await readFile(path.join(dir, 'a', 'ca.crt'))).toString();
      otherCa = (await readFile(path.join(dir, 'b', 'ca.crt'))).toString();
    });

    after(() => rm(dir, { recursive: true, force: true }));

    it('verifies a chain of the CA, not one of another CA, nor a server certificate, nor when expired', async () => {
      const roots = [new X509Certificate(ca)];
      const now = new Date();
      expect(
        verifyClientChain(await chain(path.join(dir, 'a'), 'front-proxy-client'), roots, now),
      ).to.equal(undefined);
      expect(
        verifyClientChain(await chain(path.join(dir, 'b'), 'front-proxy-client'), roots, now),
      ).to.equal('the client certificate is not signed by the front-proxy client CA');
      expect(verifyClientChain(await chain(path.join(dir, 'a'), 'server'), roots, now)).to.equal(
        'the client certificate is not for client authentication',
      );
      const later = new Date(now.getTime() + 10 * 86_400_000);
      expect(
        verifyClientChain(await chain(path.join(dir, 'a'), 'front-proxy-client'), roots, later),
      ).to.equal('certificate "front-proxy-client" is not valid now');
      expect(verifyClientChain([], roots, now)).to.equal('no client certificate');
    });

    it('reads the headers only with a verified chain and an allowed CN (any CN when none is listed)', async () => {
      const auth = new RequestHeaderAuthenticator();
      const headers = { 'x-remote-user': ['alice'] };
      const good = await chain(path.join(dir, 'a'), 'front-proxy-client');
      const now = new Date();
      expect(auth.authenticate(good, headers, now).user).to.equal(undefined);
      const config = { clientCA: ca, allowedNames: ['front-proxy-client'], ...headerNames };
      auth.setConfig(config);
      expect(auth.authenticate(good, headers, now).user?.name).to.equal('alice');
      auth.setConfig({ ...config, allowedNames: ['aggregator'] });
      expect(auth.authenticate(good, headers, now)).to.deep.equal({
        reason: `the front-proxy certificate's CN "front-proxy-client" is not an allowed name`,
      });
      auth.setConfig({ ...config, allowedNames: [] });
      expect(auth.authenticate(good, headers, now).user?.name).to.equal('alice');
      auth.setConfig({ ...config, clientCA: otherCa });
      expect(auth.authenticate(good, headers, now).user).to.equal(undefined);
    });

    it('refuses a CA bundle without a certificate, keeping the previous one', async () => {
      const auth = new RequestHeaderAuthenticator();
      const config = { clientCA: ca, allowedNames: [], ...headerNames };
      auth.setConfig(config);
      expect(() => auth.setConfig({ ...config, clientCA: 'not pem' })).to.throw(
        RequestHeaderConfigError,
        'holds no certificate',
      );
      expect(auth.clientCA()).to.equal(ca);
    });
  });

  describe('requestHeaderConfigFromData (extension-apiserver-authentication)', () => {
    it('reads the CA and the JSON lists, with kube-apiserver defaults for absent ones', () => {
      expect(
        requestHeaderConfigFromData({
          'requestheader-client-ca-file': 'PEM',
          'requestheader-allowed-names': '["front-proxy-client"]',
          'requestheader-username-headers': '["X-Remote-User"]',
          'requestheader-group-headers': '["X-Remote-Group"]',
          'requestheader-extra-headers-prefix': '["X-Remote-Extra-"]',
          'requestheader-uid-headers': '["X-Remote-Uid"]',
        }),
      ).to.deep.equal({
        clientCA: 'PEM',
        allowedNames: ['front-proxy-client'],
        usernameHeaders: ['X-Remote-User'],
        uidHeaders: ['X-Remote-Uid'],
        groupHeaders: ['X-Remote-Group'],
        extraHeaderPrefixes: ['X-Remote-Extra-'],
      });
      expect(requestHeaderConfigFromData({ 'requestheader-client-ca-file': 'PEM' })).to.deep.equal({
        clientCA: 'PEM',
        allowedNames: [],
        usernameHeaders: ['X-Remote-User'],
        uidHeaders: [],
        groupHeaders: ['X-Remote-Group'],
        extraHeaderPrefixes: ['X-Remote-Extra-'],
      });
    });

    it('has no settings without a front-proxy CA, and refuses a list that is not JSON', () => {
      expect(requestHeaderConfigFromData(undefined)).to.equal(undefined);
      expect(requestHeaderConfigFromData({ 'client-ca-file': 'PEM' })).to.equal(undefined);
      expect(() =>
        requestHeaderConfigFromData({
          'requestheader-client-ca-file': 'PEM',
          'requestheader-allowed-names': 'front-proxy-client',
        }),
      ).to.throw(
        RequestHeaderConfigError,
        'requestheader-allowed-names is not a JSON list of strings',
      );
    });
  });
});

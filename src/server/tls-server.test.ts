// The content server over TLS: modern ciphers only (TLS 1.0 and 1.1 are refused by minVersion and
// by OpenSSL 3's default security level alike, so that is not a test of ours), and a certificate
// swapped with setCertificate is served to new connections while a connection opened before
// keeps working.
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import https from 'node:https';
import tls from 'node:tls';
import type { ContentServer } from './server.js';
import type { ContentStore } from './store.js';
import { closeServedStore, openServedStore } from './test-catalogs.test.js';
import { checkPair } from './tls.js';

const fixture = (f: string) =>
  readFileSync(new URL(`../../test/fixtures/tls/${f}`, import.meta.url));
const files = { certFile: 'tls.crt', keyFile: 'tls.key' };
const at = new Date('2030-01-01T00:00:00Z');

function get(url: string, agent: https.Agent): Promise<{ status: number; serial: string }> {
  return new Promise((resolve, reject) => {
    https
      .get(url, { agent, ca: fixture('ca.crt') }, (res) => {
        const serial = (res.socket as tls.TLSSocket).getPeerCertificate().serialNumber;
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode ?? 0, serial }));
      })
      .on('error', reject);
  });
}

describe('content server over TLS', () => {
  let store: ContentStore;
  let server: ContentServer;
  const a = checkPair(files, fixture('a.crt'), fixture('a.key'), at);
  const b = checkPair(files, fixture('b.crt'), fixture('b.key'), at);

  before(async () => {
    ({ store, server } = await openServedStore('tls-server-', {}, { tls: a }));
  });

  after(() => closeServedStore({ store, server }));

  /** A TLS 1.2 handshake offering only `ciphers`: the cipher agreed, or the error. */
  function handshake12(ciphers: string): Promise<string | Error> {
    const { port } = new URL(server.url);
    return new Promise((resolve) => {
      const s = tls.connect({
        host: '127.0.0.1',
        port: Number(port),
        ca: fixture('ca.crt'),
        maxVersion: 'TLSv1.2',
        ciphers,
      });
      s.on('secureConnect', () => {
        resolve(s.getCipher().standardName);
        s.destroy();
      });
      s.on('error', resolve);
    });
  }

  it('negotiates TLS 1.3 by default, and for TLS 1.2 only ECDHE with AEAD ciphers', async () => {
    const { port } = new URL(server.url);
    const version = await new Promise<string | null>((resolve, reject) => {
      const s = tls.connect({ host: '127.0.0.1', port: Number(port), ca: fixture('ca.crt') });
      s.on('secureConnect', () => {
        resolve(s.getProtocol());
        s.destroy();
      });
      s.on('error', reject);
    });
    expect(version).to.equal('TLSv1.3');
    expect(await handshake12('ECDHE-ECDSA-AES128-GCM-SHA256')).to.equal(
      'TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256',
    );
    // CBC with SHA-256 (in node's default list): refused.
    expect(await handshake12('ECDHE-ECDSA-AES128-SHA256')).to.be.instanceOf(Error);
  });

  it('serves a new certificate to new connections; an open keep-alive connection keeps working', async () => {
    const url = `${server.url}/catalogs/none/api/v1/all`;
    const kept = new https.Agent({ keepAlive: true, maxSockets: 1 });
    expect(await get(url, kept)).to.deep.equal({ status: 404, serial: a.serial });
    server.setCertificate(b);
    const fresh = new https.Agent({ keepAlive: false });
    expect(await get(url, fresh)).to.deep.equal({ status: 404, serial: b.serial });
    // The socket of the first request, reused: its handshake was with a.
    expect(await get(url, kept)).to.deep.equal({ status: 404, serial: a.serial });
    kept.destroy();
  });
});

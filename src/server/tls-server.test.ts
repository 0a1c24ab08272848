// The content server over TLS: TLS 1.2 at least, and a certificate swapped with setCertificate is
// served to new connections while a connection opened before keeps working.
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import { ContentStore } from './store.js';
import { startContentServer } from './server.js';
import type { ContentServer } from './server.js';
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
  let dir = '';
  let store: ContentStore;
  let server: ContentServer;
  const a = checkPair(files, fixture('a.crt'), fixture('a.key'), at);
  const b = checkPair(files, fixture('b.crt'), fixture('b.key'), at);

  before(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'tls-server-'));
    store = new ContentStore(dir);
    server = await startContentServer({ store, tls: a });
  });

  after(async () => {
    await server.close();
    await store.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('refuses TLS 1.1', async () => {
    const { port } = new URL(server.url);
    const err = await new Promise<unknown>((resolve) => {
      const s = tls.connect({
        host: '127.0.0.1',
        port: Number(port),
        ca: fixture('ca.crt'),
        minVersion: 'TLSv1',
        maxVersion: 'TLSv1.1',
      });
      s.on('secureConnect', () => resolve(undefined));
      s.on('error', resolve);
    });
    expect(err).to.be.instanceOf(Error);
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

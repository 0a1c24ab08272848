// The transport's abort, against a local server that answers slowly: aborting destroys the
// request before its response and the response body after it, with the abort's reason, and the
// server sees the connection close (nothing is left holding a socket).
import { expect } from 'chai';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { NodeHttpClient } from './http.js';

describe('source/http: abort', () => {
  let server: http.Server;
  let base: string;
  const closed: string[] = [];
  before(async () => {
    server = http.createServer((req, res) => {
      req.socket.once('close', () => closed.push(req.url ?? ''));
      if (req.url === '/silent') return; // never answers
      res.writeHead(200, { 'content-length': '1000' });
      res.write('x'); // then nothing
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  const until = async (check: () => boolean) => {
    const deadline = Date.now() + 10_000;
    while (!check() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
    expect(check()).to.equal(true);
  };

  it('before the response: send rejects with the reason and the connection closes', async () => {
    const client = new NodeHttpClient();
    const ac = new AbortController();
    const sent = client.send({ method: 'GET', url: new URL(`${base}/silent`), signal: ac.signal });
    await new Promise((r) => setTimeout(r, 50));
    const why = new Error('deadline');
    ac.abort(why);
    const err = await sent.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).to.equal(why);
    await until(() => closed.includes('/silent'));
    client.close();
  });

  it('during the body: the body fails with the reason and the connection closes', async () => {
    const client = new NodeHttpClient();
    const ac = new AbortController();
    const res = await client.send({
      method: 'GET',
      url: new URL(`${base}/slow`),
      signal: ac.signal,
    });
    const failed = new Promise<unknown>((resolve) => res.body.once('error', resolve));
    res.body.resume();
    const why = new Error('catalog deleted');
    ac.abort(why);
    expect(await failed).to.equal(why);
    await until(() => closed.includes('/slow'));
    client.close();
  });
});

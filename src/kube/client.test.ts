import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import https from 'node:https';
import type { TLSSocket } from 'node:tls';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { KubeClient } from './client.js';
import { machineFor, recordingServer } from '../../test/support/kube-env.js';
import { pollUntil } from '../../test/support/poll.js';
import { watchFixture, watchFixtureEvents } from '../../test/support/watch-fixtures.js';
import { makeTestPki } from '../../test/support/test-pki.js';

describe('kube/client: KubeClient', () => {
  it('puts the server URL path before API paths and encodes the query', async () => {
    const srv = await recordingServer();
    const client = new KubeClient({
      env: machineFor(`http://127.0.0.1:${srv.port}/k8s/clusters/c-1/`),
    });
    try {
      await client.request('/apis/g/v1/things', {
        verb: 'list',
        resource: 'things',
        query: { labelSelector: 'a=b,c in (d)', limit: 500, continue: undefined },
      });
      await client.request('/api/v1/namespaces/x', {
        method: 'POST',
        verb: 'create',
        resource: 'namespaces',
        body: Buffer.from('{}'),
      });
      expect(srv.seen).to.deep.equal([
        'GET /k8s/clusters/c-1/apis/g/v1/things?labelSelector=a%3Db%2Cc%20in%20(d)&limit=500',
        'POST /k8s/clusters/c-1/api/v1/namespaces/x',
      ]);
    } finally {
      client.close();
      srv.close();
    }
  });

  it("an exec user's credentials come from client-node, loaded when first asked for", async () => {
    const auth: string[] = [];
    const server = http.createServer((req, res) => {
      auth.push(req.headers.authorization ?? '');
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const dir = await mkdtemp(path.join(tmpdir(), 'kube-exec-'));
    const credential = JSON.stringify({
      apiVersion: 'client.authentication.k8s.io/v1',
      kind: 'ExecCredential',
      status: { token: 'from-exec' },
    });
    const kubeconfig = path.join(dir, 'config');
    await writeFile(
      kubeconfig,
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'Config',
        clusters: [
          {
            name: 'c',
            cluster: {
              server: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
              // client-node refuses plain HTTP otherwise.
              'insecure-skip-tls-verify': true,
            },
          },
        ],
        users: [
          {
            name: 'u',
            user: {
              exec: {
                apiVersion: 'client.authentication.k8s.io/v1',
                command: '/bin/sh',
                args: ['-c', `printf '%s' '${credential}'`],
                interactiveMode: 'Never',
              },
            },
          },
        ],
        contexts: [{ name: 'x', context: { cluster: 'c', user: 'u' } }],
        'current-context': 'x',
      }),
    );
    const client = new KubeClient({ kubeconfig });
    try {
      await client.request('/api/v1/namespaces', { verb: 'list', resource: 'namespaces' });
      expect(auth).to.deep.equal(['Bearer from-exec']);
    } finally {
      client.close();
      server.close();
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('authenticates with the client certificate over one TLS context, and a rotated one on new connections', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'kube-client-tls-'));
    await makeTestPki(dir, ['alice', 'bob']);
    const pem = (f: string) => readFileSync(path.join(dir, f));
    // Answers with the client certificate's name and the connection it came on.
    const connections: TLSSocket[] = [];
    /** The discarded writes (the write pool's): the certificate's name and the connection. */
    const writes: string[] = [];
    const server = https.createServer(
      { key: pem('server.key'), cert: pem('server.crt'), ca: pem('ca.crt'), requestCert: true },
      (req, res) => {
        const socket = req.socket as TLSSocket;
        if (!connections.includes(socket)) connections.push(socket);
        const cn = socket.authorized ? String(socket.getPeerCertificate().subject.CN) : 'refused';
        if (req.method === 'POST') writes.push(`${cn} ${connections.indexOf(socket)}`);
        req.resume();
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ cn, connection: connections.indexOf(socket) }));
      },
    );
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as AddressInfo).port;
    let user = 'alice';
    const kubeconfig = `
apiVersion: v1
kind: Config
current-context: c
clusters: [{name: c, cluster: {server: "https://127.0.0.1:${port}", certificate-authority: ${dir}/ca.crt}}]
contexts: [{name: c, context: {cluster: c, user: u}}]
users: [{name: u, user: {client-certificate: ${dir}/current.crt, client-key: ${dir}/current.key}}]
`;
    let now = 0;
    const client = new KubeClient({
      now: () => now,
      env: {
        env: { KUBECONFIG: '/kc' },
        home: '/home/u',
        // The certificate files a rotation replaces: read as `user`'s.
        readFile: (f) =>
          f === '/kc'
            ? Buffer.from(kubeconfig)
            : f.startsWith(`${dir}/current.`)
              ? pem(f.replace('current', user).slice(dir.length + 1))
              : pem(f.slice(dir.length + 1)),
      },
    });
    const who = () =>
      client.request<{ cn: string; connection: number }>('/version', {
        verb: 'get',
        resource: 'version',
      });
    const write = () =>
      client.request('/things', {
        method: 'POST',
        body: '{}',
        verb: 'create',
        resource: 'things',
        discardResponse: true,
      });
    try {
      expect(await who()).to.deep.equal({ cn: 'alice', connection: 0 });
      expect(await who()).to.deep.equal({ cn: 'alice', connection: 0 }); // kept alive
      await write();
      await write();
      user = 'bob';
      now += 30_000; // read again only after a minute
      expect(await who()).to.deep.equal({ cn: 'alice', connection: 0 });
      now += 31_000;
      expect(await who()).to.deep.equal({ cn: 'bob', connection: 2 });
      await write();
      // The writes have their own kept-alive connection, with the same identity.
      expect(writes).to.deep.equal(['alice 1', 'alice 1', 'bob 3']);
      // The old identity's idle connections are closed.
      await pollUntil(
        async () => connections.slice(0, 2).every((c) => c.destroyed || c.readableEnded),
        { timeoutMs: 5000, what: "alice's connections to close" },
      );
      expect(await who()).to.deep.equal({ cn: 'bob', connection: 2 });
    } finally {
      client.close();
      server.close();
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('reads past a large response it discards, keeping its connection', async () => {
    const ports = new Set<number>();
    const big = JSON.stringify({ pad: 'x'.repeat(300_000) });
    const server = http.createServer((req, res) => {
      ports.add(req.socket.remotePort ?? 0);
      req.resume();
      req.on('end', () => res.writeHead(201, { 'content-type': 'application/json' }).end(big));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const client = new KubeClient({
      env: machineFor(`http://127.0.0.1:${(server.address() as AddressInfo).port}`),
      maxSockets: 1,
    });
    try {
      for (let i = 0; i < 3; i++) {
        await client.request('/api/v1/things', {
          method: 'POST',
          verb: 'create',
          resource: 'things',
          body: '{}',
          discardResponse: true,
        });
      }
      expect(ports.size).to.equal(1);
    } finally {
      client.close();
      server.close();
    }
  });

  it('streams watch lines cut anywhere by the connection', async () => {
    const events = ['{"type":"ADDED","object":{"n":"é1"}}', '{"type":"MODIFIED","object":{"n":2}}'];
    const bytes = Buffer.from(`${events[0]}\r\n\n${events[1]}\n`);
    const server = http.createServer((req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      // One byte at a time: every line, and the two bytes of "é", are cut by chunk boundaries.
      let i = 0;
      const next = (): void => {
        if (i === bytes.length) return void res.end();
        res.write(bytes.subarray(i, ++i), next);
      };
      next();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const client = new KubeClient({
      env: machineFor(`http://127.0.0.1:${(server.address() as AddressInfo).port}`),
    });
    const got: unknown[] = [];
    try {
      await client.watchEvents('/api/v1/things', { verb: 'watch', resource: 'things' }, (l) =>
        got.push(l),
      );
      expect(got).to.deep.equal(events.map((e) => JSON.parse(e) as unknown));
    } finally {
      client.close();
      server.close();
    }
  });

  it('reads a protobuf watch frame by frame, by its content type, into the JSON shape', async () => {
    const bytes = watchFixture('watch.pb');
    const server = http.createServer((req, res) => {
      res.writeHead(200, { 'content-type': 'application/vnd.kubernetes.protobuf;stream=watch' });
      // Seven bytes at a time: length prefixes and frames are cut by chunk boundaries.
      let i = 0;
      const next = (): void => {
        if (i >= bytes.length) return void res.end();
        res.write(bytes.subarray(i, (i += 7)), next);
      };
      next();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const client = new KubeClient({
      env: machineFor(`http://127.0.0.1:${(server.address() as AddressInfo).port}`),
    });
    const got: Array<{ type: string; object: { metadata: { name: string } } }> = [];
    try {
      await client.watchEvents('/apis/g/v1/things', { verb: 'watch', resource: 'things' }, (e) =>
        got.push(e as (typeof got)[number]),
      );
      const json = watchFixtureEvents<(typeof got)[number]>('watch.jsonl');
      expect(got.map((e) => [e.type, e.object.metadata.name])).to.deep.equal(
        json.map((e) => [e.type, e.object.metadata.name]),
      );
    } finally {
      client.close();
      server.close();
    }
  });

  it('aborts every open request and watch under a signal, and none after', async () => {
    let opened = 0;
    const server = http.createServer((req, res) => {
      req.resume();
      if (req.url === '/api/v1/quick') return void res.writeHead(200).end('{}');
      opened++;
      // Never answers /slow; /watch sends one line and then holds the stream open.
      if (req.url?.startsWith('/api/v1/watch')) res.writeHead(200).write('{"type":"ADDED"}\n');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const client = new KubeClient({
      env: machineFor(`http://127.0.0.1:${(server.address() as AddressInfo).port}`),
    });
    const abort = new AbortController();
    const signal = abort.signal;
    try {
      // A finished request leaves nothing behind to abort.
      await client.request('/api/v1/quick', { verb: 'get', resource: 'quick', signal });
      const lines: unknown[] = [];
      const watch = client.watchEvents(
        '/api/v1/watch',
        { verb: 'watch', resource: 'w', signal },
        (l) => lines.push(l),
      );
      const slow = client.request('/api/v1/slow', { verb: 'get', resource: 'slow', signal });
      const slowResult = slow.then(
        () => 'resolved',
        (err: Error) => err.name,
      );
      await pollUntil(async () => opened === 2 && lines.length === 1, {
        timeoutMs: 5000,
        intervalMs: 10,
        what: 'the watch and the slow request to be open',
      });
      abort.abort();
      await watch; // resolves on abort
      expect(await slowResult).to.equal('AbortError');
      expect(lines).to.deep.equal([{ type: 'ADDED' }]);
      // An aborted signal refuses new requests without sending them.
      const late = await client
        .request('/api/v1/slow', { verb: 'get', resource: 'slow', signal })
        .then(
          () => 'resolved',
          (err: Error) => err.name,
        );
      expect(late).to.equal('AbortError');
      expect(opened).to.equal(2);
    } finally {
      client.close();
      server.closeAllConnections();
      server.close();
    }
  });

  it('retries 429 and 5xx after the injected delay, sleeping through the injected sleep', async () => {
    const statuses = [503, 429, 200];
    const server = http.createServer((req, res) => {
      req.resume();
      const status = statuses.shift() ?? 500;
      // The 429 says when to come back: the injected retryDelay is given it.
      const headers = status === 429 ? { 'retry-after': '7' } : {};
      res.writeHead(status, { 'content-type': 'application/json', ...headers }).end('{}');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const slept: number[] = [];
    const client = new KubeClient({
      env: machineFor(`http://127.0.0.1:${(server.address() as AddressInfo).port}`),
      retry: {
        retryDelay: (attempt, retryAfterMs) => retryAfterMs ?? attempt * 1000,
        sleep: async (ms) => void slept.push(ms),
      },
    });
    try {
      await client.request('/api/v1/things', { verb: 'list', resource: 'things' });
      expect(slept).to.deep.equal([1000, 7000]);
      expect(statuses).to.deep.equal([]);
    } finally {
      client.close();
      server.close();
    }
  });

  it('says what each attempt was answered: status, latency, APF priority level', async () => {
    const statuses = [429, 201];
    const server = http.createServer((req, res) => {
      req.resume();
      const status = statuses.shift() ?? 500;
      res
        .writeHead(status, {
          'content-type': 'application/json',
          'x-kubernetes-pf-prioritylevel-uid': `level-${status}`,
        })
        .end('{}');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const client = new KubeClient({
      env: machineFor(`http://127.0.0.1:${(server.address() as AddressInfo).port}`),
      retry: { retryDelay: () => 0, sleep: async () => {} },
    });
    const seen: Array<{ status: number; latencyMs: number; priorityLevel?: string }> = [];
    try {
      await client.request('/api/v1/things', {
        method: 'POST',
        body: {},
        verb: 'create',
        resource: 'things',
        discardResponse: true,
        onResponse: (r) => seen.push(r),
      });
      expect(seen.map((r) => [r.status, r.priorityLevel])).to.deep.equal([
        [429, 'level-429'],
        [201, 'level-201'],
      ]);
      expect(seen.every((r) => r.latencyMs >= 0 && r.latencyMs < 60_000)).to.equal(true);
    } finally {
      client.close();
      server.close();
    }
  });
});

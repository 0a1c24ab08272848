import { expect } from 'chai';
import { isTerminal } from '../util/errors.js';
import { Readable } from 'node:stream';
import { newCounters } from './counters.js';
import { digestOf } from './digest.js';
import { findSourceError } from './errors.js';
import type { HttpClient, HttpRequest, HttpResponse } from './http.js';
import { MediaTypes } from './manifest.js';
import type { Endpoint } from './registries-conf.js';
import { RegistryClient } from './registry-client.js';
import type { RetryClock } from './retry.js';

type Handler = (
  req: HttpRequest,
) => { status: number; headers?: Record<string, string>; body?: string | Buffer } | Error;

/** An in-memory HttpClient: each request goes to the handler; requests are recorded. */
function fakeHttp(handler: Handler): HttpClient & { log: HttpRequest[] } {
  const log: HttpRequest[] = [];
  return {
    log,
    async send(req) {
      log.push(req);
      const r = handler(req);
      if (r instanceof Error) throw r;
      const res: HttpResponse = {
        status: r.status,
        headers: r.headers ?? {},
        body: Readable.from([Buffer.from(r.body ?? '')]),
      };
      return res;
    },
  };
}

function fakeClock(): RetryClock & { slept: number[] } {
  const slept: number[] = [];
  let t = 1_000_000;
  return { slept, now: () => t, sleep: async (ms) => void slept.push((t += ms) && ms) };
}

/** Every name of these tests (reg.example, cdn.example, auth.example) on a public address. */
const publicNames = { resolve: async () => [{ address: '203.0.113.7', family: 4 as const }] };

const ep: Endpoint = {
  scheme: 'https',
  host: 'reg.example',
  repository: 'team/cat',
  mirror: false,
};
const blob = Buffer.from('layer bytes');
const blobDigest = digestOf(blob);
const manifest = Buffer.from(
  JSON.stringify({ schemaVersion: 2, mediaType: MediaTypes.ociManifest, config: {}, layers: [] }),
);

async function readAll(r: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of r) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

describe('source/registry-client', () => {
  it('follows blob redirects, sending the registry credentials only to the registry', async () => {
    const http = fakeHttp((req): ReturnType<Handler> => {
      if (req.url.host === 'reg.example') {
        if (!req.headers?.authorization)
          return { status: 401, headers: { 'www-authenticate': 'Basic realm="r"' } };
        return { status: 307, headers: { location: `https://cdn.example/blob?sig=1` } };
      }
      return { status: 200, body: blob };
    });
    const c = new RegistryClient({
      http,
      clock: fakeClock(),
      credentials: async () => ({ username: 'u', password: 'p' }),
      destinations: publicNames,
    });
    const got = await readAll(
      await c.fetchBlob(ep, { mediaType: 'x', digest: blobDigest, size: blob.length }, 'blob'),
    );
    expect(got.equals(blob)).to.equal(true);
    expect(http.log.map((r) => [r.url.host, r.headers?.authorization ?? null])).to.deep.equal([
      ['reg.example', null],
      ['reg.example', 'Basic dTpw'],
      ['cdn.example', null],
    ]);
    expect(c.counters.requests.blob).to.equal(3);
  });

  it('rejects blob content that does not match its digest', async () => {
    const http = fakeHttp(() => ({ status: 200, body: Buffer.from('layer bytez') }));
    const c = new RegistryClient({ http, clock: fakeClock() });
    const err = await readAll(
      await c.fetchBlob(ep, { mediaType: 'x', digest: blobDigest, size: blob.length }, 'blob'),
    ).catch((e: unknown) => e);
    expect(findSourceError(err)?.code).to.equal('DigestMismatch');
  });

  it('retries 429, 5xx and network errors with backoff, honouring Retry-After', async () => {
    const answers: ReturnType<Handler>[] = [
      Object.assign(new Error('reset'), { code: 'ECONNRESET' }),
      { status: 503 },
      { status: 429, headers: { 'retry-after': '2' } },
      { status: 200, body: manifest, headers: { 'content-type': MediaTypes.ociManifest } },
    ];
    const http = fakeHttp(() => answers.shift()!);
    const clock = fakeClock();
    const counters = newCounters();
    const c = new RegistryClient({
      http,
      clock,
      counters,
      retry: { attempts: 5, baseDelayMs: 100, maxDelayMs: 5000 },
    });
    const m = await c.fetchManifest(ep, 'v1', 'manifest');
    expect(m.digest).to.equal(digestOf(manifest));
    expect(clock.slept).to.deep.equal([100, 200, 2000]);
    expect(counters.requests.manifest).to.equal(4);
    expect(counters.retries).to.equal(3);
  });

  it('gives up after the attempts with a retryable Unavailable error naming no host or port', async () => {
    const http = fakeHttp(() =>
      Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5000'), { code: 'ECONNREFUSED' }),
    );
    const c = new RegistryClient({
      http,
      clock: fakeClock(),
      retry: { attempts: 3, baseDelayMs: 1, maxDelayMs: 1 },
    });
    const err = await c.fetchManifest(ep, 'v1', 'manifest of x').catch((e: unknown) => e);
    const se = findSourceError(err);
    expect(se?.code).to.equal('Unavailable');
    expect(isTerminal(err)).to.equal(false);
    expect(se?.message).to.equal('manifest of x: registry unreachable (ECONNREFUSED)');
    expect(http.log).to.have.length(3);
  });

  it('fetches a Bearer token once per scope and reuses it until it expires', async () => {
    let tokenRequests = 0;
    const http = fakeHttp((req): ReturnType<Handler> => {
      if (req.url.host === 'auth.example') {
        tokenRequests++;
        const scope = req.url.searchParams.get('scope');
        expect(req.url.searchParams.get('service')).to.equal('reg');
        return {
          status: 200,
          body: JSON.stringify({ token: `tok-${scope}-${tokenRequests}`, expires_in: 300 }),
        };
      }
      const repo = req.url.pathname.split('/').slice(2, 4).join('/');
      if (req.headers?.authorization !== `Bearer tok-repository:${repo}:pull-${tokenRequests}`)
        return {
          status: 401,
          headers: {
            'www-authenticate': `Bearer realm="https://auth.example/token",service="reg",scope="repository:${repo}:pull"`,
          },
        };
      return { status: 200, body: manifest };
    });
    const clock = fakeClock();
    const c = new RegistryClient({ http, clock, destinations: publicNames });
    await c.fetchManifest(ep, 'v1', 'm');
    await c.fetchManifest(ep, 'v2', 'm');
    expect(tokenRequests).to.equal(1);
    expect(c.counters.requests).to.deep.include({ token: 1, manifest: 3 }); // one 401, then two with the token
    await c.fetchManifest({ ...ep, repository: 'team/other' }, 'v1', 'm');
    expect(tokenRequests, 'new scope, new token, no 401 round trip').to.equal(2);
    expect(c.counters.requests.manifest).to.equal(4);
    await clock.sleep(600_000);
    await c.fetchManifest(ep, 'v1', 'm');
    expect(tokenRequests, 'expired token is renewed').to.equal(3);
  });

  it('classifies statuses: 404 by digest is terminal, by tag retryable', async () => {
    const http = fakeHttp(() => ({
      status: 404,
      body: JSON.stringify({ errors: [{ code: 'MANIFEST_UNKNOWN' }] }),
    }));
    const c = new RegistryClient({ http, clock: fakeClock() });
    const byTag = await c.fetchManifest(ep, 'v1', 'm').catch((e: unknown) => e);
    expect(findSourceError(byTag)).to.include({
      code: 'NotFound',
      message: 'm: registry returned HTTP 404 MANIFEST_UNKNOWN',
    });
    expect(isTerminal(byTag)).to.equal(false);
    const byDigest = await c.fetchManifest(ep, digestOf('x'), 'm').catch((e: unknown) => e);
    expect(findSourceError(byDigest)).to.include({ code: 'NotFound' });
    expect(isTerminal(byDigest)).to.equal(true);
  });

  it('verifies a manifest fetched by digest and the Docker-Content-Digest header', async () => {
    const c = new RegistryClient({
      http: fakeHttp(() => ({ status: 200, body: manifest })),
      clock: fakeClock(),
    });
    const err = await c.fetchManifest(ep, digestOf('other'), 'm').catch((e: unknown) => e);
    expect(findSourceError(err)?.code).to.equal('DigestMismatch');
    const c2 = new RegistryClient({
      http: fakeHttp(() => ({
        status: 200,
        body: manifest,
        headers: { 'docker-content-digest': digestOf('other') },
      })),
      clock: fakeClock(),
    });
    expect(
      findSourceError(await c2.fetchManifest(ep, 'v1', 'm').catch((e: unknown) => e))?.code,
    ).to.equal('DigestMismatch');
  });
});

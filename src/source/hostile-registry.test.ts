// A hostile registry over real loopback listeners: its redirects and Bearer token realms go only
// where destinations.ts allows (judged against the address the registry answered from, names
// resolved first and connected to as judged), and nothing of what it or a target answered reaches
// the message a ClusterCatalog's status and Events would show (errorChain, as the controller
// writes it). Both listeners are on loopback: a registry "on the internet" is one whose responses
// the transport reports as coming from a public address.
import { expect } from 'chai';
import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { caught } from '../../test/support/caught.js';
import { oneLayerImage } from '../../test/support/oci-image.js';
import { errorChain } from '../util/errors.js';
import { digestOf } from './digest.js';
import type { Resolver } from './destinations.js';
import { findSourceError } from './errors.js';
import { NodeHttpClient, type HttpClient } from './http.js';
import { MediaTypes } from './manifest.js';
import { ImagePuller } from './puller.js';

type Handler = (req: http.IncomingMessage, res: http.ServerResponse) => void;

interface Listener {
  host: string;
  port: number;
  /** What it answers; each request is recorded first. */
  handler: Handler;
  requests: { url: string; host: string | undefined }[];
  close(): Promise<void>;
}

async function listener(host = '127.0.0.1'): Promise<Listener> {
  const l: Listener = {
    host,
    port: 0,
    handler: (_req, res) => res.writeHead(404).end(),
    requests: [],
    close: () => Promise.resolve(),
  };
  const server = http.createServer((req, res) => {
    l.requests.push({ url: req.url ?? '', host: req.headers.host });
    l.handler(req, res);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, host, resolve);
  });
  l.port = (server.address() as AddressInfo).port;
  l.close = async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  };
  return l;
}

/** What the target answers: an image's manifest and config, and a token; all with a secret. */
const SECRET = 'hunter2';
const { config, manifest } = oneLayerImage(Buffer.from(`layer of ${SECRET}`));
const targetHandler: Handler = (req, res) => {
  if (req.url?.startsWith('/token'))
    return void res.writeHead(200).end(JSON.stringify({ token: 't0ken' }));
  if (req.url?.includes('/blob')) return void res.writeHead(200).end(config);
  res.writeHead(200, { 'content-type': MediaTypes.ociManifest }).end(manifest);
};

/** The transport, with the registry's answers reported as coming from `address`. */
function answeringFrom(registry: Listener, address: string): HttpClient {
  const node = new NodeHttpClient();
  return {
    async send(req) {
      const res = await node.send(req);
      return req.url.port === String(registry.port) ? { ...res, remoteAddress: address } : res;
    },
  };
}

const noRetries = { attempts: 1, baseDelayMs: 1, maxDelayMs: 1 };

describe('source: a hostile registry (redirects, token realms, bodies)', () => {
  let registry: Listener;
  let target: Listener;
  let cacheDir: string;
  beforeEach(async () => {
    registry = await listener();
    target = await listener();
    target.handler = targetHandler;
    cacheDir = await mkdtemp(path.join(tmpdir(), 'catalogd-hostile-registry-'));
  });
  afterEach(async () => {
    await registry.close();
    await target.close();
    await rm(cacheDir, { recursive: true, force: true });
  });

  const ref = (r: Listener, tag = 'v1') => `${r.host}:${r.port}/team/cat:${tag}`;
  const puller = (opts: Partial<ConstructorParameters<typeof ImagePuller>[0]> = {}) =>
    new ImagePuller({ cacheDir, retry: noRetries, ...opts });
  /** The message status would show; it names none of the target, its port or what it said. */
  const expectQuiet = (err: unknown, says: string) => {
    const msg = errorChain(err);
    expect(msg).to.contain(says);
    for (const word of [SECRET, String(target.port), 'internal', 'token=']) {
      expect(msg, `"${word}" in: ${msg}`).to.not.contain(word);
    }
    return msg;
  };

  for (const kind of ['manifest', 'blob'] as const) {
    it(`refuses a ${kind} redirect from a registry on a public address to 127.0.0.1; a local registry's is followed`, async () => {
      registry.handler = (req, res) => {
        if (kind === 'blob' && req.url?.includes('/manifests/'))
          return void res.writeHead(200, { 'content-type': MediaTypes.ociManifest }).end(manifest);
        res
          .writeHead(302, {
            location: `http://127.0.0.1:${target.port}/internal/${kind}?token=${SECRET}`,
          })
          .end();
      };
      const op = (p: ImagePuller) =>
        kind === 'manifest' ? p.resolve(ref(registry)) : p.pull(ref(registry));
      const err = await caught(op(puller({ http: answeringFrom(registry, '192.0.2.10') })));
      expect(findSourceError(err)?.code).to.equal('BadResponse');
      expectQuiet(err, "refused the registry's redirect: to an address more private");
      expect(target.requests, 'the target was never asked').to.deep.equal([]);

      // The same registry answering from loopback (a local registry) is followed (a blob's pull
      // then fails on the layer, which is not the one the target answers: not a refusal).
      const ok = await op(puller()).catch((e: unknown) => e);
      expect(target.requests[0]?.url).to.equal(`/internal/${kind}?token=${SECRET}`);
      if (kind === 'manifest') expect(ok).to.equal(digestOf(manifest));
      else expect(errorChain(ok)).to.not.contain('refused');
    });
  }

  it("refuses a redirect to the apiserver's address from a loopback registry (forbiddenHosts)", async function () {
    const local = await listener('127.0.0.2').catch(() => undefined);
    if (!local) this.skip(); // 127.0.0.2 is loopback on Linux only
    try {
      local.handler = (_req, res) =>
        res.writeHead(307, { location: `http://127.0.0.1:${target.port}/api/v1/secrets` }).end();
      const err = await caught(puller({ forbiddenHosts: ['127.0.0.1'] }).resolve(ref(local)));
      expectQuiet(err, "refused the registry's redirect");
      expect(target.requests).to.deep.equal([]);
      // Without the apiserver there, loopback to loopback is followed.
      expect(await puller().resolve(ref(local))).to.equal(digestOf(manifest));
      expect(target.requests).to.have.length(1);
    } finally {
      await local.close();
    }
  });

  it('refuses a Bearer token realm on 127.0.0.1 named by a registry on a public address', async () => {
    registry.handler = (req, res) => {
      if (req.headers.authorization === 'Bearer t0ken')
        return void res.writeHead(200, { 'content-type': MediaTypes.ociManifest }).end(manifest);
      res
        .writeHead(401, {
          'www-authenticate': `Bearer realm="http://127.0.0.1:${target.port}/token",service="reg"`,
        })
        .end();
    };
    const err = await caught(
      puller({ http: answeringFrom(registry, '192.0.2.10') }).resolve(ref(registry)),
    );
    expect(findSourceError(err)?.code).to.equal('BadResponse');
    expectQuiet(err, "refused the registry's token realm: to an address more private");
    expect(target.requests).to.deep.equal([]);
    // From a local registry, the same realm is used.
    expect(await puller().resolve(ref(registry))).to.equal(digestOf(manifest));
    expect(target.requests.map((r) => r.url.split('?')[0])).to.deep.equal(['/token']);
  });

  it('resolves a redirect target name before judging it, and connects to the address judged', async () => {
    // cdn.invalid resolves nowhere but through this resolver: a request that reaches the
    // target was connected to the address judged.
    const resolver: Resolver = async (host) => {
      if (host !== 'cdn.invalid')
        throw Object.assign(new Error('ENOTFOUND'), { code: 'ENOTFOUND' });
      return [{ address: '127.0.0.1', family: 4 }];
    };
    registry.handler = (_req, res) =>
      res.writeHead(302, { location: `http://cdn.invalid:${target.port}/m` }).end();
    const err = await caught(
      puller({ http: answeringFrom(registry, '192.0.2.10'), resolver }).resolve(ref(registry)),
    );
    expectQuiet(err, "refused the registry's redirect");
    expect(target.requests).to.deep.equal([]);
    expect(await puller({ resolver }).resolve(ref(registry))).to.equal(digestOf(manifest));
    expect(target.requests).to.deep.equal([{ url: '/m', host: `cdn.invalid:${target.port}` }]);
  });

  it('says no port of a redirect target that refused the connection', async () => {
    const closed = await listener();
    const port = closed.port;
    await closed.close();
    registry.handler = (_req, res) =>
      res.writeHead(302, { location: `http://127.0.0.1:${port}/x` }).end();
    const err = await caught(puller().resolve(ref(registry)));
    expect(findSourceError(err)?.code).to.equal('Unavailable');
    const msg = errorChain(err);
    expect(msg).to.contain('registry unreachable (ECONNREFUSED)');
    expect(msg).to.not.contain(String(port));
  });

  describe('no text of a body in a message', () => {
    const answer =
      (status: number, body: string, headers: Record<string, string> = {}): Handler =>
      (_req, res) =>
        res.writeHead(status, headers).end(body);

    it('a manifest that is not JSON', async () => {
      registry.handler = answer(200, `${SECRET} is the password`, {
        'content-type': MediaTypes.ociManifest,
      });
      const err = await caught(puller().pull(ref(registry)));
      expect(findSourceError(err)?.code).to.equal('BadResponse');
      expectQuiet(err, 'manifest is not valid JSON');
    });

    it('an image config that is not JSON', async () => {
      const bad = oneLayerImage(Buffer.from('layer'));
      const cfg = Buffer.from(`${SECRET} is the password`);
      const m = Buffer.from(
        bad.manifest
          .toString()
          .replace(digestOf(bad.config), digestOf(cfg))
          .replace(`"size":${bad.config.length}`, `"size":${cfg.length}`),
      );
      registry.handler = (req, res) =>
        req.url?.includes('/manifests/')
          ? res.writeHead(200, { 'content-type': MediaTypes.ociManifest }).end(m)
          : res.writeHead(200).end(cfg);
      const err = await caught(puller().pull(ref(registry)));
      expect(findSourceError(err)?.code).to.equal('InvalidLayer');
      expectQuiet(err, 'image config is not valid JSON');
    });

    it('a token response that is not JSON', async () => {
      registry.handler = answer(401, '', {
        'www-authenticate': `Bearer realm="http://127.0.0.1:${target.port}/token"`,
      });
      target.handler = answer(200, `${SECRET} is the password`);
      const err = await caught(puller().resolve(ref(registry)));
      expectQuiet(err, 'token response is not valid JSON');
    });

    it('an error body: its code only when it is one of the spec', async () => {
      registry.handler = answer(
        400,
        JSON.stringify({ errors: [{ code: `${SECRET.toUpperCase()}_IS_IT`, message: SECRET }] }),
      );
      const err = await caught(puller().resolve(ref(registry)));
      const msg = expectQuiet(err, 'registry returned HTTP 400');
      expect(msg).to.not.contain(SECRET.toUpperCase());
      registry.handler = answer(404, JSON.stringify({ errors: [{ code: 'MANIFEST_UNKNOWN' }] }));
      expectQuiet(await caught(puller().resolve(ref(registry))), 'HTTP 404 MANIFEST_UNKNOWN');
    });

    it('a media type or platform of a manifest', async () => {
      const odd = JSON.stringify({ mediaType: `application/${SECRET}`, layers: [] });
      registry.handler = answer(200, odd);
      expectQuiet(await caught(puller().pull(ref(registry))), 'unsupported manifest media type');
      const index = JSON.stringify({
        mediaType: MediaTypes.ociIndex,
        manifests: [
          { digest: digestOf('a'), size: 1, platform: { os: SECRET, architecture: 'amd64' } },
          { digest: digestOf('b'), size: 1, platform: { os: 'linux', architecture: 's390x' } },
        ],
      });
      registry.handler = answer(200, index);
      expectQuiet(await caught(puller().pull(ref(registry))), 'index has: other, linux/s390x');
    });
  });
});

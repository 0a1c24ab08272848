// Trusting a content server's CA: a fetch given the CA verifies the server against it; one
// without gets a one-line reason naming the untrusted certificate; the server's certificate
// can be swapped for new connections (the reload path of the controller).
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { ContentStore, startContentServer } from '../server/index.js';
import type { ContentServer } from '../server/index.js';
import {
  fetchTrusting,
  readCertificateAuthority,
  untrustedReason,
  viaApiserverProxy,
} from './trust.js';

const fixture = (f: string) =>
  readFileSync(new URL(`../../test/fixtures/tls/${f}`, import.meta.url));

describe('content server trust', () => {
  let dir = '';
  let store: ContentStore;
  let server: ContentServer;

  before(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'trust-'));
    store = new ContentStore(dir);
    server = await startContentServer({
      store,
      tls: { cert: fixture('a.crt'), key: fixture('a.key') },
    });
  });

  after(async () => {
    await server.close();
    await store.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('serves https:// and is trusted with its CA', async () => {
    expect(server.url).to.match(/^https:\/\/127\.0\.0\.1:\d+$/);
    const res = await fetchTrusting(fixture('ca.crt'))(`${server.url}/catalogs/none/api/v1/all`);
    expect(res.status).to.equal(404);
  });

  it('is not trusted without its CA: a one-line reason', async () => {
    const err = await fetch(`${server.url}/catalogs/none/api/v1/all`).catch((e: unknown) => e);
    const reason = untrustedReason(err);
    expect(reason).to.match(
      /^the server's certificate is not trusted \((SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_VERIFY_LEAF_SIGNATURE|UNABLE_TO_GET_ISSUER_CERT_LOCALLY)[^)]*\); give its CA with --certificate-authority FILE/,
    );
    expect(reason).to.not.include('\n');
    expect(untrustedReason(new Error('x', { cause: { code: 'ECONNREFUSED' } }))).to.equal(
      undefined,
    );
  });

  it('reads a CA file, refusing one without a certificate', async () => {
    const f = path.join(dir, 'not-a-ca.pem');
    await writeFile(f, 'hello');
    expect(() => readCertificateAuthority(f)).to.throw(
      `--certificate-authority ${f}: no PEM certificate in it`,
    );
    expect(() => readCertificateAuthority(path.join(dir, 'none'))).to.throw(
      /cannot read it \(ENOENT\)/,
    );
    expect(
      readCertificateAuthority(new URL('../../test/fixtures/tls/ca.crt', import.meta.url).pathname),
    ).to.deep.equal(fixture('ca.crt'));
  });

  it('sends URLs under the apiserver through the kube client, others directly', async () => {
    const seen: string[] = [];
    const kube = {
      server: new URL('https://api.example:6443/prefix/'),
      getResponse: (p: string) => {
        seen.push(`kube ${p}`);
        return Promise.resolve(new Response('k'));
      },
    };
    const direct = (input: string | URL | Request) => {
      seen.push(`direct ${input instanceof Request ? input.url : input.toString()}`);
      return Promise.resolve(new Response('d'));
    };
    const f = viaApiserverProxy(kube, direct);
    await f(
      'https://api.example:6443/prefix/api/v1/namespaces/n/services/https:s:443/proxy/catalogs/c/api/v1/metas?schema=x',
    );
    await f('https://api.example:6443/other');
    await f('https://content.example/catalogs/c/api/v1/all');
    expect(seen).to.deep.equal([
      'kube /api/v1/namespaces/n/services/https:s:443/proxy/catalogs/c/api/v1/metas?schema=x',
      'direct https://api.example:6443/other',
      'direct https://content.example/catalogs/c/api/v1/all',
    ]);
    // A POST (a long GraphQL query) is refused rather than sent as a GET without its body.
    const post = await f(
      'https://api.example:6443/prefix/api/v1/namespaces/n/services/https:s:443/proxy/api/v1/graphql',
      { method: 'POST', body: '{}' },
    ).catch((e: unknown) => e);
    expect((post as Error).message).to.match(
      /^the apiserver's service proxy is read with GET only/,
    );
    expect(seen).to.have.length(3);
  });
});

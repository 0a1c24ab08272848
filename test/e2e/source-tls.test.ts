// The CA bundle: a registry behind TLS with a certificate from a test CA is trusted only when the
// CA bundle is given. The server is docker-registry itself with http.tls, reached by its
// https URL through the transport (loopback endpoints use plain HTTP, so this goes one level
// below the puller).
import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { NodeHttpClient } from '../../src/source/http.js';
import { RegistryClient } from '../../src/source/registry-client.js';
import { findSourceError } from '../../src/source/errors.js';
import { freePort } from '../support/ports.js';
import { pollUntil } from '../support/registry.js';
import { makeTestPki } from '../support/test-pki.js';

describe('source e2e: custom CA bundle', function () {
  this.timeout(60_000);
  let dir: string;
  let port: number;
  let proc: ReturnType<typeof spawn> | undefined;

  before(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'catalogd-source-tls-'));
    await makeTestPki(dir);
    port = await freePort();
    await writeFile(
      path.join(dir, 'config.yml'),
      `version: 0.1\nlog: {level: error}\nstorage:\n  filesystem: {rootdirectory: ${dir}/storage}\nhttp:\n  addr: 127.0.0.1:${port}\n  tls:\n    certificate: ${dir}/server.crt\n    key: ${dir}/server.key\n`,
    );
    const p = spawn('docker-registry', ['serve', path.join(dir, 'config.yml')], {
      stdio: 'ignore',
    });
    proc = p;
    const ca = await readFile(path.join(dir, 'ca.crt'));
    const http = new NodeHttpClient({ ca });
    await pollUntil('TLS registry', 20_000, async () => {
      const res = await http.send({ method: 'GET', url: new URL(`https://127.0.0.1:${port}/v2/`) });
      res.body.resume();
      return res.status === 200;
    });
    http.close();
  });
  after(async () => {
    if (proc && proc.exitCode === null) {
      const exited = new Promise((r) => proc!.once('exit', r));
      proc.kill('SIGTERM');
      await exited;
    }
    await rm(dir, { recursive: true, force: true });
  });

  const ep = () => ({
    scheme: 'https' as const,
    host: `127.0.0.1:${port}`,
    repository: 'tls/catalog',
    mirror: false,
  });

  it('trusts the registry with the CA bundle, and only with it', async () => {
    const ca = await readFile(path.join(dir, 'ca.crt'));
    const trusted = new RegistryClient({ http: new NodeHttpClient({ ca }) });
    const notFound = await trusted.fetchManifest(ep(), 'v1', 'manifest').catch((e: unknown) => e);
    expect(findSourceError(notFound)?.code, 'TLS works; the tag just does not exist').to.equal(
      'NotFound',
    );

    const untrusted = new RegistryClient({
      http: new NodeHttpClient(),
      retry: { attempts: 1, baseDelayMs: 1, maxDelayMs: 1 },
    });
    const err = await untrusted.fetchManifest(ep(), 'v1', 'manifest').catch((e: unknown) => e);
    expect(findSourceError(err)?.code).to.equal('Unavailable');
    expect((err as Error).message).to.match(
      /registry unreachable \((UNABLE_TO_VERIFY_LEAF_SIGNATURE|SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_GET_ISSUER_CERT_LOCALLY)\)/,
    );
  });
});

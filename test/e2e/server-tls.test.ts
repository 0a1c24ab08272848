// HTTPS content (SPEC §4, issue 35) against the real control plane: the controller serves a
// catalog over TLS from files laid out as the kubelet mounts a Secret (`..data` a symlink to a
// timestamped directory, swapped to update), made by hack/serving-cert.sh. A client trusting the
// CA reads /api/v1/all; a rotated certificate (new serial) reaches new connections without a
// restart while a client polls without one failed request; a broken pair keeps the old one; a
// client without the CA fails with one line naming the URL and the reason; a broken pair at start
// stops the controller with one line. A pod reading through the Service is in-cluster.test.ts
// (the node). Not here: the apiserver's service proxy (its proxy found no endpoints for a
// selector-less Service with hand-made Endpoints and EndpointSlices); the proxy routing is
// unit-tested in src/client/trust.test.ts.
import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdir, readFile, rename, rm, symlink, writeFile } from 'node:fs/promises';
import https from 'node:https';
import path from 'node:path';
import type { TLSSocket } from 'node:tls';
import { promisify } from 'node:util';
import { CatalogClient, ContentOmittedError, fetchTrusting } from '../../src/client/index.js';
import { run } from '../../src/plugin/main.js';
import { listObjects } from '../support/catalogs.js';
import { repoRoot } from '../support/cluster.js';
import type { RunningController } from '../support/controller.js';
import { startController } from '../support/controller.js';
import { pushAndSync, setUpE2e } from '../support/e2e-setup.js';
import { kubectl } from '../support/kubectl.js';
import { uniqueName } from '../support/names.js';
import { pollUntil } from '../support/poll.js';
import { tsxEntry } from '../support/process.js';

const exec = promisify(execFile);

/** A serving certificate from hack/serving-cert.sh into dir (the CA in dir is kept); its serial. */
async function makeServingCert(dir: string): Promise<string> {
  await exec(
    path.join(repoRoot, 'hack', 'serving-cert.sh'),
    ['--out', dir, '--no-secret', '--days', '2', '--ip', '127.0.0.1', '--dns', 'localhost'],
    { cwd: repoRoot },
  );
  const { stdout } = await exec('openssl', ['x509', '-noout', '-serial', '-in', `${dir}/tls.crt`]);
  return stdout.trim().replace(/^serial=/, '');
}

/**
 * A Secret volume as the kubelet writes it: tls.crt and tls.key are links into `..data`, a link to
 * a timestamped directory; an update writes a new directory and renames a new `..data` over the
 * old one (one atomic swap of both files).
 */
class SecretMount {
  private generation = 0;
  constructor(readonly dir: string) {}

  async swap(cert: Buffer, key: Buffer): Promise<void> {
    const gen = `..gen_${++this.generation}`;
    await mkdir(path.join(this.dir, gen));
    await writeFile(path.join(this.dir, gen, 'tls.crt'), cert);
    await writeFile(path.join(this.dir, gen, 'tls.key'), key);
    await symlink(gen, path.join(this.dir, '..data_tmp'));
    await rename(path.join(this.dir, '..data_tmp'), path.join(this.dir, '..data'));
    if (this.generation === 1) {
      await symlink('..data/tls.crt', path.join(this.dir, 'tls.crt'));
      await symlink('..data/tls.key', path.join(this.dir, 'tls.key'));
    }
  }
}

/** A package whose one bundle is larger than the controller's --max-object-bytes below. */
function tlsCatalog(): string {
  const blobs = [
    { schema: 'olm.package', name: 'tls-op', defaultChannel: 'stable' },
    {
      schema: 'olm.channel',
      package: 'tls-op',
      name: 'stable',
      entries: [{ name: 'tls-op.v1.0.0' }],
    },
    {
      schema: 'olm.bundle',
      package: 'tls-op',
      name: 'tls-op.v1.0.0',
      image: 'quay.io/example/tls-op-bundle:v1.0.0',
      properties: [
        { type: 'olm.package', value: { packageName: 'tls-op', version: '1.0.0' } },
        { type: 'olm.bundle.object', value: { data: Buffer.alloc(3000, 'x').toString('base64') } },
      ],
    },
  ];
  return blobs.map((b) => JSON.stringify(b)).join('\n') + '\n';
}

/** One GET over a new connection: its status and the serial of the certificate it was served. */
function getOnNewConnection(url: string, ca: Buffer): Promise<{ status: number; serial: string }> {
  return new Promise((resolve, reject) => {
    https
      .get(url, { ca, agent: false }, (res) => {
        const serial = (res.socket as TLSSocket).getPeerCertificate().serialNumber;
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode ?? 0, serial }));
        res.on('error', reject);
      })
      .on('error', reject);
  });
}

describe('server e2e: HTTPS content, certificate rotation, trust', function () {
  this.timeout(300_000);
  const name = uniqueName('https');
  let tmp = '';
  let certs = '';
  let mount: SecretMount;
  let ca: Buffer;
  let firstSerial = '';
  let controller: RunningController;
  let base = '';

  before(async () => {
    ({ tmp } = await setUpE2e({ tmpPrefix: 'server-tls-e2e-' }));
    certs = path.join(tmp, 'certs');
    mount = new SecretMount(path.join(tmp, 'mount'));
    await mkdir(mount.dir);
    firstSerial = await makeServingCert(certs);
    ca = readFileSync(path.join(certs, 'ca.crt'));
    await mount.swap(
      readFileSync(path.join(certs, 'tls.crt')),
      readFileSync(path.join(certs, 'tls.key')),
    );
    controller = await startController({
      args: [
        `--tls-cert-file=${mount.dir}/tls.crt`,
        `--tls-key-file=${mount.dir}/tls.key`,
        '--tls-reload-interval=1s',
        // The reload counters are read from /metrics without a token: plain metrics, as
        // --metrics-secure would serve them only to a reviewed token (metrics-auth.test.ts).
        '--no-metrics-secure',
        // The bundle (over 2000 bytes) is on the content server only: a client reads it over HTTPS.
        '--max-object-bytes=2000',
      ],
    });
    const fbc = path.join(tmp, 'fbc');
    await mkdir(fbc);
    await writeFile(path.join(fbc, 'catalog.json'), tlsCatalog());
    base = (await pushAndSync(name, fbc, `tls:${uniqueName('v')}`)).status?.urls?.base ?? '';
  });

  after(async () => {
    await controller?.stop();
    await kubectl(['delete', 'clustercatalog', name, '--wait=false']);
    if (tmp) await rm(tmp, { recursive: true, force: true });
  });

  it('status.urls.base is https://, and /api/v1/all is served verifying the CA', async () => {
    const port = new URL(controller.serverUrl).port;
    expect(base.startsWith(`https://127.0.0.1:${port}/catalogs/${name}`), base).to.equal(true);
    const res = await fetchTrusting(ca)(`${base}/api/v1/all`);
    expect(res.status).to.equal(200);
    const lines = (await res.text()).split('\n').filter(Boolean);
    expect(lines).to.have.length((await listObjects(`catalog=${name}`)).items.length);
    const { serial } = await getOnNewConnection(`${base}/api/v1/all`, ca);
    expect(serial).to.equal(firstSerial);
  });

  it('a client without the CA fails in one line naming the URL and the reason; with it, it reads', async () => {
    const [obj] = (await listObjects(`catalog=${name},schema=olm.bundle`)).items;
    const client = new CatalogClient();
    try {
      const err = await client
        .blobOf(obj as unknown as Parameters<CatalogClient['blobOf']>[0])
        .catch((e: unknown) => e);
      expect(err).to.be.instanceOf(ContentOmittedError);
      const msg = (err as Error).message;
      expect(msg).to.not.include('\n');
      expect(msg).to.include(
        `from https://127.0.0.1:${new URL(controller.serverUrl).port}/catalogs/${name}/api/v1/metas?schema=olm.bundle`,
      );
      expect(msg).to.match(
        /: the server's certificate is not trusted \((UNABLE_TO_VERIFY_LEAF_SIGNATURE|SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_GET_ISSUER_CERT_LOCALLY)[^)]*\); give its CA with --certificate-authority FILE/,
      );
    } finally {
      client.close();
    }
    // kubectl catalog: the same line, and the answer with --certificate-authority.
    const io = () => {
      const out: string[] = [];
      const err: string[] = [];
      return {
        out,
        err,
        io: { stdout: (s: string) => out.push(s), stderr: (s: string) => err.push(s) },
      };
    };
    const without = io();
    expect(await run(['bundles', 'tls-op', '--catalog', name], without.io)).to.equal(1);
    expect(without.err.join('')).to.match(
      /^error: cannot read the whole blob of .* from https:\/\/127\.0\.0\.1:\d+\/catalogs\/.*: the server's certificate is not trusted \([A-Z_]+[^)]*\); give its CA with --certificate-authority FILE[^\n]*\n$/,
    );
    const trusted = io();
    const code = await run(
      [
        'bundles',
        'tls-op',
        '--catalog',
        name,
        '--certificate-authority',
        path.join(certs, 'ca.crt'),
      ],
      trusted.io,
    );
    expect(code, trusted.err.join('')).to.equal(0);
    expect(trusted.out.join('')).to.include('tls-op.v1.0.0');
  });

  it('kubectl catalog trusts a CA given by the environment (NODE_EXTRA_CA_CERTS)', async () => {
    const args = tsxEntry('plugin/kubectl-catalog.ts');
    args.push('bundles', 'tls-op', '--catalog', name);
    const { stdout } = await exec(process.execPath, args, {
      cwd: repoRoot,
      env: { ...process.env, NODE_EXTRA_CA_CERTS: path.join(certs, 'ca.crt') },
    });
    expect(stdout).to.include('tls-op.v1.0.0');
  });

  it('serves a rotated certificate to new connections, no restart, while a client polls without a failure; a broken pair keeps it', async () => {
    const url = `${base}/api/v1/all`;
    const pid = controller.pid;
    const seen: string[] = [];
    const failures: string[] = [];
    let polling = true;
    let polls = 0;
    const poller = (async () => {
      while (polling) {
        polls++;
        try {
          const r = await getOnNewConnection(url, ca);
          if (r.status !== 200) failures.push(`HTTP ${r.status}`);
          if (seen.at(-1) !== r.serial) seen.push(r.serial);
        } catch (err) {
          failures.push(String(err));
        }
      }
    })();
    try {
      await pollUntil(async () => seen.length > 0, { timeoutMs: 30_000, what: 'a first answer' });
      const secondSerial = await makeServingCert(certs);
      expect(secondSerial).to.not.equal(firstSerial);
      const second = {
        cert: readFileSync(path.join(certs, 'tls.crt')),
        key: readFileSync(path.join(certs, 'tls.key')),
      };
      await mount.swap(second.cert, second.key);
      await pollUntil(async () => seen.at(-1) === secondSerial, {
        timeoutMs: 60_000,
        what: `the new serial ${secondSerial} on a new connection`,
      });
      expect(
        await controller.metric('catalogd_tls_certificate_reloads_total', { result: 'applied' }),
      ).to.equal(1);

      // A broken pair: a third certificate with the second's key. The second stays served.
      await makeServingCert(certs);
      await mount.swap(readFileSync(path.join(certs, 'tls.crt')), second.key);
      await pollUntil(
        async () =>
          (await controller.metric('catalogd_tls_certificate_reloads_total', {
            result: 'failed',
          })) === 1,
        { timeoutMs: 60_000, what: 'the broken pair to be refused' },
      );
      const log = await readFile(controller.logFile, 'utf8');
      expect(log).to.include('content server certificate not reloaded; the previous one stays');
      expect(log).to.include('is not the key of the certificate in --tls-cert-file');
      expect((await getOnNewConnection(url, ca)).serial).to.equal(secondSerial);
      // The poller goes on over the refused reload: still the second serial, no failure.
      const after = polls + 20;
      await pollUntil(async () => polls >= after, { timeoutMs: 60_000, what: '20 more polls' });
    } finally {
      polling = false;
      await poller;
    }
    expect(failures).to.deep.equal([]);
    expect(seen).to.deep.equal([firstSerial, seen[1]]);
    expect(controller.pid).to.equal(pid);
    expect(controller.alive()).to.equal(true);
  });

  it('hack/serving-cert.sh puts the pair and the CA into a kubernetes.io/tls Secret and prints the CA', async () => {
    const secret = uniqueName('serving-cert');
    const out = path.join(tmp, 'secret');
    const { stdout } = await exec(
      path.join(repoRoot, 'hack', 'serving-cert.sh'),
      ['--out', out, '--namespace', 'default', '--secret', secret],
      { cwd: repoRoot },
    );
    try {
      expect(stdout).to.equal(readFileSync(path.join(out, 'ca.crt'), 'utf8'));
      const got = JSON.parse(
        (await kubectl(['-n', 'default', 'get', 'secret', secret, '-o', 'json'])).stdout,
      ) as { type: string; data: Record<string, string> };
      expect(got.type).to.equal('kubernetes.io/tls');
      const data = (k: string) => Buffer.from(got.data[k] ?? '', 'base64').toString('utf8');
      expect(data('tls.crt')).to.equal(readFileSync(path.join(out, 'tls.crt'), 'utf8'));
      expect(data('tls.key')).to.equal(readFileSync(path.join(out, 'tls.key'), 'utf8'));
      expect(data('ca.crt')).to.equal(stdout);
    } finally {
      await kubectl(['-n', 'default', 'delete', 'secret', secret, '--wait=false']);
    }
  });

  it('refuses to start with a mismatched pair, in one line', async () => {
    const other = path.join(tmp, 'other');
    await makeServingCert(other);
    const { stdout, stderr, code } = await exec(
      process.execPath,
      [
        ...tsxEntry('cmd/catalogd.ts'),
        'controller',
        `--kubeconfig=${process.env.KUBECONFIG ?? ''}`,
        `--tls-cert-file=${path.join(certs, 'tls.crt')}`,
        `--tls-key-file=${path.join(other, 'tls.key')}`,
        '--server-addr=127.0.0.1:0',
        '--metrics-addr=127.0.0.1:0',
        '--health-addr=127.0.0.1:0',
        `--cache-dir=${path.join(tmp, 'cache')}`,
      ],
      { cwd: repoRoot },
    ).then(
      (r) => ({ ...r, code: 0 }),
      (e: { stdout: string; stderr: string; code: number }) => e,
    );
    expect(code).to.equal(1);
    expect(stdout).to.equal('');
    expect(stderr).to.equal(
      `catalogd: --tls-key-file ${path.join(other, 'tls.key')} is not the key of the certificate in --tls-cert-file ${path.join(certs, 'tls.crt')}\n`,
    );
  });
});

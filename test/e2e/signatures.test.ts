// Signed catalogs against the real registry (distribution 2.8: no referrers API, so bundles go
// under the referrers tag), with signatures made by the real `cosign` (hack/cosign.sh) and by
// `catalogd push --sign-key`: a signed digest is served; an unsigned digest and one signed by
// another key are refused with a message naming the problem while the served revision stays
// byte-identical (objects' resourceVersions, /api/v1/all, resolvedSource); a tag without a
// signature is Retrying; editing the policy file serves the refused catalog; cosign accepts what
// `catalogd push --sign-key` signed, and a cosign sigstore bundle is accepted too.
import { expect } from 'chai';
import { execFileSync, spawnSync } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { cp, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pushCatalog } from '../../src/source/index.js';
import {
  applyCatalog,
  condition,
  getCatalog,
  installCrds,
  sampleDir,
  waitSynced,
} from '../support/catalogs.js';
import { repoRoot } from '../support/cluster.js';
import { startController, type RunningController } from '../support/controller.js';
import { kubectlOk } from '../support/kubectl.js';
import { uniqueName } from '../support/names.js';
import { pollUntil } from '../support/poll.js';
import { tsxEntry } from '../support/process.js';

/** The sample catalog plus one package of its own: a distinct digest per variant. */
async function variant(root: string, name: string): Promise<string> {
  const dir = path.join(root, name);
  await cp(sampleDir, dir, { recursive: true });
  await mkdir(path.join(dir, name));
  await writeFile(
    path.join(dir, name, 'catalog.json'),
    JSON.stringify({ schema: 'olm.package', name }) + '\n',
  );
  return dir;
}

/** The catalog's objects: name → resourceVersion. */
async function resourceVersions(catalog: string): Promise<Record<string, string>> {
  const list = JSON.parse(
    await kubectlOk(['get', 'catalogmetadata', '-l', `catalog=${catalog}`, '-o', 'json']),
  ) as { items: { metadata: { name: string; resourceVersion: string } }[] };
  return Object.fromEntries(list.items.map((o) => [o.metadata.name, o.metadata.resourceVersion]));
}

describe('signed catalogs (e2e)', function () {
  this.timeout(180_000);
  let work: string;
  let cosign: string;
  let controller: RunningController | undefined;
  // Set in before(): the root hook exports REGISTRY after the describe bodies have run.
  let repo: string;
  const catalog = uniqueName('signed');
  const tagCatalog = uniqueName('signed-tag');

  before(async function () {
    this.timeout(30 * 60_000); // the first run builds cosign from source
    cosign = execFileSync(path.join(repoRoot, 'hack', 'cosign.sh'), { encoding: 'utf8' }).trim();
    repo = `${process.env.REGISTRY}/${uniqueName('sig')}`;
    work = await mkdtemp(path.join(tmpdir(), 'catalogd-sig-'));
    await installCrds();
  });

  after(async () => {
    // Deleted while the controller runs: it removes their objects and finalizers.
    await kubectlOk(['delete', 'clustercatalog', catalog, tagCatalog, '--ignore-not-found']);
    await controller?.stop();
    await rm(work, { recursive: true, force: true });
  });

  // No transparency log, no TUF root from the network; cosign's cache stays in the temp dir.
  const cosignEnv = () => ({
    ...process.env,
    COSIGN_PASSWORD: '',
    COSIGN_YES: 'true',
    TUF_ROOT: path.join(work, 'tuf'),
  });
  const sign = (ref: string, ...flags: string[]) =>
    execFileSync(
      cosign,
      ['sign', '--key', path.join(work, 'cosign.key'), '--tlog-upload=false', ...flags, ref],
      { cwd: work, env: cosignEnv(), stdio: 'pipe' },
    );

  it('refuses a policy it cannot check at start-up, with a message and no stack trace', async () => {
    const bad = path.join(work, 'bad-policy.json');
    await writeFile(
      bad,
      JSON.stringify({
        default: [{ type: 'sigstoreSigned', keyPath: '/k.pub', rekorPublicKeyPath: '/r.pub' }],
      }),
    );
    const run = spawnSync(
      process.execPath,
      [...tsxEntry('cmd/catalogd.ts'), 'controller', `--signature-policy=${bad}`],
      { cwd: repoRoot, encoding: 'utf8', timeout: 60_000 },
    );
    expect(run.status).to.equal(1);
    expect(run.stderr.trim()).to.equal(
      'catalogd: --signature-policy: signature policy: default[0]: "rekorPublicKeyPath" ' +
        'requires a Rekor key; not supported',
    );
  });

  it('serves what the policy key signed, refuses the unsigned and the wrongly signed, reloads', async () => {
    execFileSync(cosign, ['generate-key-pair'], { cwd: work, env: cosignEnv(), stdio: 'pipe' });
    const own = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    await writeFile(
      path.join(work, 'own.key'),
      own.privateKey.export({ type: 'pkcs8', format: 'pem' }),
    );
    await writeFile(
      path.join(work, 'own.pub'),
      own.publicKey.export({ type: 'spki', format: 'pem' }),
    );

    // The policy: this test's namespace needs the cosign key; everything else is accepted.
    const policyFile = path.join(work, 'policy.json');
    const policy = (keyPaths: string[]) =>
      writeFile(
        policyFile,
        JSON.stringify({
          default: [{ type: 'insecureAcceptAnything' }],
          transports: {
            docker: { [repo]: [{ type: 'sigstoreSigned', keyPaths }] },
          },
        }),
      );
    await policy([path.join(work, 'cosign.pub')]);

    const v1 = (await pushCatalog(await variant(work, 'v1'), `${repo}/cat:v1`)).ref;
    sign(v1);
    const unsigned = (await pushCatalog(await variant(work, 'v2'), `${repo}/cat:v2`)).ref;
    // Signed by `catalogd push --sign-key` with a key the policy does not have (yet).
    const byOwn = execFileSync(
      process.execPath,
      [
        ...tsxEntry('cmd/catalogd.ts'),
        'push',
        '--sign-key',
        path.join(work, 'own.key'),
        await variant(work, 'v3'),
        `${repo}/cat:v3`,
      ],
      { cwd: repoRoot, encoding: 'utf8' },
    ).trim();
    // cosign accepts what catalogd signed.
    execFileSync(
      cosign,
      [
        'verify',
        '--key',
        path.join(work, 'own.pub'),
        '--insecure-ignore-tlog=true',
        '--offline=true',
        byOwn,
      ],
      { cwd: work, env: cosignEnv(), stdio: 'pipe' },
    );

    controller = await startController({
      args: [
        '--no-leader-elect',
        `--signature-policy=${policyFile}`,
        '--signature-policy-interval=1s',
      ],
    });

    await applyCatalog(catalog, v1);
    const served = await waitSynced(catalog);
    const before = {
      versions: await resourceVersions(catalog),
      all: await (await fetch(`${served.status?.urls?.base}/api/v1/all`)).text(),
      resolved: served.status?.resolvedSource,
    };
    expect(Object.keys(before.versions).length).to.be.greaterThan(0);

    const refused = async (ref: string, message: RegExp) => {
      await applyCatalog(catalog, ref);
      const c = await pollUntil(
        async () => {
          const c = await getCatalog(catalog);
          const p = condition(c, 'Progressing');
          return p?.observedGeneration === c.metadata.generation && p?.reason === 'Blocked' && c;
        },
        { timeoutMs: 60_000, what: `${catalog} Blocked on ${ref}` },
      );
      expect(condition(c, 'Progressing')?.message).to.match(message);
      expect(c.status?.resolvedSource).to.deep.equal(before.resolved);
      expect(await resourceVersions(catalog)).to.deep.equal(before.versions);
      expect(await (await fetch(`${served.status?.urls?.base}/api/v1/all`)).text()).to.equal(
        before.all,
      );
    };
    const digestOf = (ref: string) => ref.slice(ref.indexOf('@') + 1);
    await refused(
      unsigned,
      new RegExp(
        `no signature found for ${digestOf(unsigned)} \\(scope ${repo.replace(/\./g, '\\.')} requires sigstoreSigned`,
      ),
    );
    await refused(
      byOwn,
      new RegExp(
        `signed by another key: none of the 1 signature\\(s\\) of ${digestOf(byOwn)} verifies`,
      ),
    );
    expect(
      await controller.metric('catalogd_signature_verifications_total', { result: 'no-signature' }),
    ).to.be.greaterThan(0);
    expect(
      await controller.metric('catalogd_signature_verifications_total', { result: 'wrong-key' }),
    ).to.be.greaterThan(0);
    const events = await kubectlOk([
      'get',
      'events',
      '-n',
      'default',
      '--field-selector',
      `involvedObject.name=${catalog}`,
      '-o',
      'json',
    ]);
    expect(events).to.include('signed by another key');

    // A tag whose digest is unsigned: Retrying, a signature may appear.
    await applyCatalog(tagCatalog, `${repo}/cat:v2`);
    await pollUntil(
      async () => {
        const p = condition(await getCatalog(tagCatalog), 'Progressing');
        return p?.reason === 'Retrying' && /no signature found/.test(p.message ?? '');
      },
      { timeoutMs: 60_000, what: `${tagCatalog} Retrying` },
    );

    // The tag's image gets signed: the tag catalog, Retrying, is served on a later attempt.
    sign(unsigned);
    await waitSynced(tagCatalog);

    // The policy gains the second key: the refused digest is served, with no spec change.
    await policy([path.join(work, 'cosign.pub'), path.join(work, 'own.pub')]);
    await waitSynced(catalog, served.status?.contentHash);
    expect((await getCatalog(catalog)).status?.resolvedSource?.image?.ref).to.equal(byOwn);
    expect(
      await controller.metric('catalogd_signature_policy_reloads_total', { result: 'applied' }),
    ).to.equal(1);

    // A sigstore bundle written by cosign (referrers tag schema, no referrers API here).
    const bundled = (await pushCatalog(await variant(work, 'v4'), `${repo}/cat:v4`)).ref;
    sign(bundled, '--new-bundle-format');
    await applyCatalog(catalog, bundled);
    const c = await waitSynced(catalog);
    expect(c.status?.resolvedSource?.image?.ref).to.equal(bundled);
  });
});

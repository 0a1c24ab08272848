// Source auth e2e: Basic auth (registry with htpasswd) and Bearer tokens (registry with token
// auth, in front of it a token server of the test's own), credentials from dockerconfigjson.
import { expect } from 'chai';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  findSourceError,
  ImagePuller,
  isRetryable,
  parseDockerConfigJSON,
  pushCatalog,
  type PullSecretSource,
} from '../../src/source/index.js';
import { startRegistry, type TestRegistry } from '../support/registry.js';
import { startTokenServer, type TokenServer } from '../support/registry-token.js';
import { caught } from '../support/caught.js';
import { writePackage } from '../support/source-e2e.js';

function secretFor(host: string, username: string, password: string): PullSecretSource {
  const json = JSON.stringify({
    auths: { [host]: { auth: Buffer.from(`${username}:${password}`).toString('base64') } },
  });
  return { dockerConfigs: async () => [parseDockerConfigJSON(json)] };
}

describe('source e2e: registry auth', function () {
  this.timeout(120_000);
  const user = { username: 'catalog-user', password: 's3cret-pw' };
  let work: string;
  let catalogDir: string;

  before(async () => {
    work = await mkdtemp(path.join(tmpdir(), 'catalogd-source-auth-'));
    catalogDir = path.join(work, 'catalog');
    await writePackage(catalogDir, 'foo');
  });
  after(() => rm(work, { recursive: true, force: true }));

  describe('Basic (htpasswd)', () => {
    let reg: TestRegistry;
    before(async () => {
      reg = await startRegistry({ htpasswd: user });
    });
    after(() => reg?.dispose());

    it('pushes and pulls with dockerconfigjson credentials; refuses without or with wrong ones', async () => {
      const ref = `${reg.host}/basic/catalog:v1`;
      const pushed = await pushCatalog(catalogDir, ref, {
        pullSecrets: secretFor(reg.host, user.username, user.password),
      });

      const ok = await new ImagePuller({
        cacheDir: path.join(work, 'basic-ok'),
        pullSecrets: secretFor(reg.host, user.username, user.password),
      }).pull(ref);
      expect(ok.digest).to.equal(pushed.digest);

      const anon = await caught(
        new ImagePuller({ cacheDir: path.join(work, 'basic-anon') }).pull(ref),
      );
      expect(findSourceError(anon)?.code).to.equal('Unauthorized');
      expect(isRetryable(anon), 'a pull secret may appear later').to.equal(true);

      const wrong = await caught(
        new ImagePuller({
          cacheDir: path.join(work, 'basic-wrong'),
          pullSecrets: secretFor(reg.host, user.username, 'nope'),
        }).pull(ref),
      );
      expect(findSourceError(wrong)?.code).to.equal('Unauthorized');
      expect((wrong as Error).message).to.contain('rejected the credentials');
    });
  });

  describe('Bearer (token server)', () => {
    let tokens: TokenServer;
    let reg: TestRegistry;
    before(async () => {
      tokens = await startTokenServer(user);
      reg = await startRegistry({ token: tokens });
    });
    after(async () => {
      await reg?.dispose();
      await tokens?.close();
    });

    it('pulls with a token, fetching one token per scope and reusing it', async () => {
      const secrets = secretFor(reg.host, user.username, user.password);
      const a1 = await pushCatalog(catalogDir, `${reg.host}/team/a:v1`, { pullSecrets: secrets });
      await writeFile(path.join(catalogDir, 'extra.json'), '{"schema":"extra"}');
      const a2 = await pushCatalog(catalogDir, `${reg.host}/team/a:v2`, { pullSecrets: secrets });
      const b1 = await pushCatalog(catalogDir, `${reg.host}/team/b:v1`, { pullSecrets: secrets });
      expect(a1.digest).to.not.equal(a2.digest);
      tokens.requests.clear();

      const puller = new ImagePuller({ cacheDir: path.join(work, 'bearer'), pullSecrets: secrets });
      expect((await puller.pull(`${reg.host}/team/a:v1`)).digest).to.equal(a1.digest);
      expect((await puller.pull(`${reg.host}/team/a:v2`)).digest).to.equal(a2.digest);
      expect(await puller.resolve(`${reg.host}/team/a:v1`)).to.equal(a1.digest);
      expect(puller.counters.requests.token, 'one token for repository team/a').to.equal(1);
      expect(tokens.requests.get('repository:team/a:pull')).to.equal(1);

      expect((await puller.pull(`${reg.host}/team/b:v1`)).digest).to.equal(b1.digest);
      expect(puller.counters.requests.token, 'a new scope needs a new token').to.equal(2);
      expect(tokens.requests.get('repository:team/b:pull')).to.equal(1);

      const anon = await caught(
        new ImagePuller({ cacheDir: path.join(work, 'bearer-anon') }).pull(`${reg.host}/team/a:v1`),
      );
      expect(findSourceError(anon)?.code).to.equal('Unauthorized');
      expect(isRetryable(anon)).to.equal(true);
    });

    it('a token server that is down is a retryable error', async () => {
      const down = await startTokenServer(user);
      const reg2 = await startRegistry({ token: down });
      await down.close();
      try {
        const err = await caught(
          new ImagePuller({
            cacheDir: path.join(work, 'bearer-down'),
            pullSecrets: secretFor(reg2.host, user.username, user.password),
          }).pull(`${reg2.host}/team/a:v1`),
        );
        expect(isRetryable(err)).to.equal(true);
        expect(findSourceError(err)?.code).to.equal('Unavailable');
      } finally {
        await reg2.dispose();
      }
    });
  });
});

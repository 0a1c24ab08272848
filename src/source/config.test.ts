import { expect } from 'chai';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { dockerConfigFromSecret, pullerOptionsFromFlags } from './config.js';
import { findCredentials } from './docker-config.js';

describe('source/config', () => {
  it('reads dockerconfigjson Secrets and ignores other types', () => {
    const json = JSON.stringify({
      auths: { 'quay.io': { auth: Buffer.from('u:p').toString('base64') } },
    });
    const data = { '.dockerconfigjson': Buffer.from(json).toString('base64') };
    const c = dockerConfigFromSecret({ type: 'kubernetes.io/dockerconfigjson', data });
    expect(findCredentials([c!], 'quay.io', 'x')).to.deep.equal({ username: 'u', password: 'p' });
    expect(dockerConfigFromSecret({ type: 'Opaque', data })).to.equal(undefined);
  });

  it('builds puller options from flag files', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'source-config-'));
    try {
      await writeFile(
        path.join(dir, 'registries.conf'),
        '[[registry]]\nlocation = "quay.io"\ninsecure = true\n',
      );
      await writeFile(path.join(dir, 'ca.pem'), '-----BEGIN CERTIFICATE-----\n');
      const o = await pullerOptionsFromFlags({
        cacheDir: dir,
        registriesConf: path.join(dir, 'registries.conf'),
        caFile: path.join(dir, 'ca.pem'),
        platform: 'linux/arm64',
      });
      expect(o.registries?.registries[0]?.insecure).to.equal(true);
      expect(o.platform).to.deep.equal({ os: 'linux', architecture: 'arm64' });
      expect(String(o.caBundle)).to.contain('BEGIN CERTIFICATE');
      const err = await pullerOptionsFromFlags({
        cacheDir: dir,
        caFile: path.join(dir, 'nope'),
      }).catch((e: Error) => e);
      expect((err as Error).message).to.equal('cannot read the CA bundle file');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { FIXTURES } from '../../test/fixtures/fbc/expectations.js';
import { contentPublisher } from './publisher.js';
import type { ContentPublisher } from './publisher.js';

describe('server/publisher: prepare', () => {
  let root: string;
  let publisher: ContentPublisher;
  let builds = 0;

  before(async () => {
    root = await mkdtemp(path.join(tmpdir(), 'publisher-'));
    await cp(path.join(FIXTURES, 'json-stream'), path.join(root, 'catalog'), {
      recursive: true,
    });
    publisher = await contentPublisher({
      dir: path.join(root, 'content'),
      serverUrl: 'http://127.0.0.1',
      listen: { host: '127.0.0.1', port: 0 },
      beforeBuild: () => builds++,
    });
  });
  after(async () => {
    await publisher?.close();
    await rm(root, { recursive: true, force: true });
  });

  it('announces a new revision build (the memory reclaim), not the reuse of a stored one', async () => {
    const dir = path.join(root, 'catalog');
    const hash = await publisher.prepare('cat', dir);
    expect(hash).to.match(/^sha256:[0-9a-f]{64}$/);
    expect(builds).to.equal(1);
    expect(await publisher.prepare('cat', dir, { known: hash })).to.equal(hash);
    expect(builds, 'reused: no build').to.equal(1);
  });
});

import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { FIXTURES } from '../../test/fixtures/fbc/expectations.js';
import { ManualClock } from '../util/clock.js';
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

describe('server/publisher: waitFor and onChange (the served API)', () => {
  let root: string;
  let publisher: ContentPublisher;
  const clock = new ManualClock();

  before(async () => {
    root = await mkdtemp(path.join(tmpdir(), 'publisher-'));
    await cp(path.join(FIXTURES, 'json-stream'), path.join(root, 'catalog'), {
      recursive: true,
    });
    publisher = await contentPublisher({
      dir: path.join(root, 'content'),
      serverUrl: 'http://127.0.0.1',
      listen: { host: '127.0.0.1', port: 0 },
      revisionWait: { maxWaitMs: 5000, maxWaiting: 10, clock },
    });
  });
  after(async () => {
    await publisher?.close();
    await rm(root, { recursive: true, force: true });
  });

  it('tells listeners of a publish and a removal, and waits for a revision until it is held', async () => {
    const changes: string[] = [];
    const unsubscribe = publisher.onChange((c) => changes.push(c));
    const dir = path.join(root, 'catalog');
    const hash = await publisher.prepare('cat', dir);
    const waiting = publisher.waitFor('cat', hash);
    await publisher.publish('cat', hash, dir, new Date(0));
    expect(await waiting).to.equal(true);
    expect(await publisher.waitFor('cat', hash), 'held: at once').to.equal(true);
    expect(changes).to.deep.equal(['cat']);

    const never = publisher.waitFor('cat', 'sha256:' + '0'.repeat(64));
    await clock.advance(5000);
    expect(await never, 'past the bound').to.equal(false);
    const aborted = new AbortController();
    const left = publisher.waitFor('cat', 'sha256:' + '1'.repeat(64), aborted.signal);
    aborted.abort();
    expect(await left, 'the client left').to.equal(false);

    await publisher.remove('cat');
    unsubscribe();
    await publisher.remove('cat');
    expect(changes).to.deep.equal(['cat', 'cat']);
  });
});

import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { FIXTURES } from '../../test/fixtures/fbc/expectations.js';
import { ManualClock } from '../util/clock.js';
import { contentPublisher } from './publisher.js';
import type { ContentPublisher } from './publisher.js';

type PublisherOptions = Parameters<typeof contentPublisher>[0];

/**
 * Registers the suite's hooks: before it, a publisher on a free port with `options`, and a copy
 * of the json-stream fixture (its `dir`); after it, both gone.
 */
function publisherSuite(options: Partial<PublisherOptions>) {
  const suite = {} as { root: string; dir: string; publisher: ContentPublisher };
  before(async () => {
    suite.root = await mkdtemp(path.join(tmpdir(), 'publisher-'));
    suite.dir = path.join(suite.root, 'catalog');
    await cp(path.join(FIXTURES, 'json-stream'), suite.dir, { recursive: true });
    suite.publisher = await contentPublisher({
      dir: path.join(suite.root, 'content'),
      serverUrl: 'http://127.0.0.1',
      listen: { host: '127.0.0.1', port: 0 },
      ...options,
    });
  });
  after(async () => {
    await suite.publisher?.close();
    await rm(suite.root, { recursive: true, force: true });
  });
  return suite;
}

describe('server/publisher: prepare', () => {
  let builds = 0;
  const suite = publisherSuite({ beforeBuild: () => builds++ });

  it('announces a new revision build (the memory reclaim), not the reuse of a stored one', async () => {
    const { publisher, dir } = suite;
    const hash = await publisher.prepare('cat', dir);
    expect(hash).to.match(/^sha256:[0-9a-f]{64}$/);
    expect(builds).to.equal(1);
    expect(await publisher.prepare('cat', dir, { known: hash })).to.equal(hash);
    expect(builds, 'reused: no build').to.equal(1);
  });
});

describe('server/publisher: waitFor and onChange (the served API)', () => {
  const clock = new ManualClock();
  const suite = publisherSuite({ revisionWait: { maxWaitMs: 5000, maxWaiting: 10, clock } });

  it('tells listeners of a publish and a removal, and waits for a revision until it is held', async () => {
    const { publisher, dir } = suite;
    const changes: string[] = [];
    const unsubscribe = publisher.onChange((c) => changes.push(c));
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

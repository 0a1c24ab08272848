// Aborting a pull, and the minimum transfer rate, over an in-memory registry whose layer body
// the test feeds by hand: an abort stops the download at once, with its reason, caching nothing;
// a pull shared by two attempts goes on while one of them still wants it; a transfer that gets
// too few bytes per window fails with what it got.
import { expect } from 'chai';
import { readdir } from 'node:fs/promises';
import { PassThrough, Readable } from 'node:stream';
import { caught } from '../../test/support/caught.js';
import { oneLayerImage } from '../../test/support/oci-image.js';
import { tempDirEach } from '../../test/support/temp-dir.js';
import { ManualClock } from '../util/clock.js';
import { AttemptDeadline } from '../util/deadline.js';
import { isTerminal } from '../util/errors.js';
import { digestOf } from './digest.js';
import { findSourceError } from './errors.js';
import type { HttpClient, HttpRequest } from './http.js';
import { MediaTypes } from './manifest.js';
import { ImagePuller } from './puller.js';

// The layer is never read to the end: its content does not matter.
const { config, layer, manifest, digest } = oneLayerImage(Buffer.alloc(4096, 1));
const REF = `reg.example/team/cat@${digest}`;

/** A registry whose layer bodies are PassThroughs the test writes to. */
function registry() {
  const layerBodies: PassThrough[] = [];
  const requests: HttpRequest[] = [];
  const http: HttpClient = {
    async send(req) {
      requests.push(req);
      const p = req.url.pathname;
      const headers = { 'content-type': MediaTypes.ociManifest };
      if (p.includes('/manifests/'))
        return { status: 200, headers, body: Readable.from([manifest]) };
      if (p.endsWith(digestOf(config)))
        return { status: 200, headers: {}, body: Readable.from([config]) };
      const body = new PassThrough();
      req.signal?.addEventListener('abort', () => body.destroy(req.signal!.reason as Error));
      layerBodies.push(body);
      return { status: 200, headers: {}, body };
    },
  };
  return { http, layerBodies, requests };
}

/** Polls check to a 10 s deadline (the pull does real file I/O before its layer request). */
async function until(check: () => boolean): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!check() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 2));
  if (!check()) throw new Error('condition never held');
}

describe('source/puller: abort and minimum rate', () => {
  const cacheDir = tempDirEach('catalogd-pull-abort-');

  it('an abort during the layer download rejects with its reason and leaves nothing in the cache', async () => {
    const reg = registry();
    const puller = new ImagePuller({ cacheDir: cacheDir(), http: reg.http });
    const ac = new AbortController();
    const pull = caught(puller.pull(REF, { signal: ac.signal }));
    await until(() => reg.layerBodies.length === 1);
    reg.layerBodies[0]!.write(layer.subarray(0, 100));
    const why = new Error('the catalog was deleted');
    ac.abort(why);
    const err = (await pull) as Error;
    expect(err.cause).to.equal(why);
    // The signal reached the transport: every request saw the abort, the body was destroyed.
    expect(reg.requests.map((r) => r.signal?.aborted)).to.deep.equal([true, true, true]);
    expect(reg.layerBodies[0]!.destroyed).to.equal(true);
    expect(await readdir(cacheDir())).to.deep.equal([]);
  });

  it('an abort when the unpack starts ends the pull with the reason of the abort, not a tar error, and caches nothing', async () => {
    const reg = registry();
    const puller = new ImagePuller({ cacheDir: cacheDir(), http: reg.http });
    const ac = new AbortController();
    const why = new Error('the catalog changed');
    const activity = {
      doing: (what: string) => {
        if (what.startsWith('unpacking')) ac.abort(why);
      },
    };
    const pull = caught(puller.pull(REF, { signal: ac.signal, activity }));
    await until(() => reg.layerBodies.length === 1);
    reg.layerBodies[0]!.end(layer); // the whole layer: the download completes
    const err = (await pull) as Error;
    expect(err.cause).to.equal(why);
    expect(await readdir(cacheDir())).to.deep.equal([]);
  });

  it("the attempt's deadline ends the pull as the source's retryable Timeout, saying what was slow", async () => {
    const reg = registry();
    const clock = new ManualClock();
    const puller = new ImagePuller({ cacheDir: cacheDir(), http: reg.http });
    const attempt = new AttemptDeadline(60_000, clock);
    const pull = caught(puller.pull(REF, { signal: attempt.signal, activity: attempt }));
    await until(() => reg.layerBodies.length === 1);
    reg.layerBodies[0]!.write(layer.subarray(0, 100));
    await clock.advance(60_000);
    const err = (await pull) as Error;
    expect(findSourceError(err)?.code).to.equal('Timeout');
    expect(err.message).to.match(
      new RegExp(`^pull catalog image ${REF}: timed out after 1m0s fetching layer 1 of `),
    );
    expect(isTerminal(err)).to.equal(false);
  });

  it('a pull shared by two attempts goes on when one of them aborts', async () => {
    const reg = registry();
    const puller = new ImagePuller({ cacheDir: cacheDir(), http: reg.http });
    const first = new AbortController();
    const a = caught(puller.pull(REF, { signal: first.signal }));
    const b = caught(puller.pull(REF, { signal: new AbortController().signal }));
    await until(() => reg.layerBodies.length === 1);
    first.abort(new Error('first gone'));
    expect(((await a) as Error).message).to.equal('pull catalog image ' + REF);
    // The shared download was not destroyed: the other attempt still reads it.
    expect(reg.layerBodies[0]!.destroyed).to.equal(false);
    reg.layerBodies[0]!.end(Buffer.from('not a tar'));
    expect(findSourceError(await b)?.code).to.not.equal(undefined);
  });

  it('a transfer slower than the minimum rate fails naming the bytes received', async () => {
    const reg = registry();
    const clock = new ManualClock();
    const puller = new ImagePuller({
      cacheDir: cacheDir(),
      http: reg.http,
      minimumRate: { bytesPerSecond: 1024, windowMs: 30_000 },
      timers: clock,
    });
    const pull = caught(puller.pull(REF));
    await until(() => reg.layerBodies.length === 1);
    reg.layerBodies[0]!.write(layer.subarray(0, 900));
    await clock.advance(30_000);
    const se = findSourceError(await pull);
    expect(se?.code).to.equal('Timeout');
    expect(se?.message).to.equal(
      `layer 1 of ${REF}: transfer slower than 1.0 kB/s over 30s: 900 B of 4.1 kB`,
    );
    expect(await readdir(cacheDir())).to.deep.equal([]);
  });
});

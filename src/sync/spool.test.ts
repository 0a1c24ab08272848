import { expect } from 'chai';
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { tempDirEach } from '../../test/support/temp-dir.js';
import type { SpooledWrite } from './spool.js';
import { WriteSpool } from './spool.js';

async function readAll(spool: WriteSpool): Promise<SpooledWrite[]> {
  const out: SpooledWrite[] = [];
  for await (const w of spool.read()) out.push({ ...w, body: Buffer.from(w.body) });
  return out;
}

describe('sync/spool: WriteSpool', () => {
  const dir = tempDirEach('catalogd-spool-test-');

  it('reads back what was added, in order, across read chunks and multi-byte text', async () => {
    const spool = await WriteSpool.create(dir());
    // Bodies around and above the 1 MiB read chunk, so records straddle chunk boundaries.
    const bodies = [
      JSON.stringify({ a: 'é'.repeat(10) }),
      JSON.stringify({ big: 'x'.repeat((1 << 20) - 7) }),
      JSON.stringify({ n: 1 }),
      JSON.stringify({ huge: 'ü'.repeat(1 << 20) }),
      '{}',
    ];
    for (const [i, body] of bodies.entries())
      await spool.add(i % 2 ? 'update' : 'create', `obj-${i}.x`, i === 2, body);
    await spool.finish();
    expect(spool.count).to.equal(bodies.length);
    const read = await readAll(spool);
    expect(read.map((w) => [w.verb, w.name, w.omitted, w.body.toString('utf8')])).to.deep.equal(
      bodies.map((b, i) => [i % 2 ? 'update' : 'create', `obj-${i}.x`, i === 2, b]),
    );
    await spool.dispose();
    expect(existsSync(spool.file)).to.equal(false);
  });

  it('reuses read chunks whose records were released, never one a record still holds', async () => {
    const spool = await WriteSpool.create(dir());
    // About 12 MiB over 1 MiB chunks: records straddle boundaries; each body names itself.
    const bodyOf = (i: number) => JSON.stringify({ i, pad: String(i % 10).repeat(3000 + (i % 7)) });
    const n = 4000;
    for (let i = 0; i < n; i++) await spool.add('create', `o-${i}`, false, bodyOf(i));
    await spool.finish();
    const buffers = new Set<ArrayBufferLike>();
    // Released as a write would be, a few records later (bodies in flight), but one record is
    // kept unreleased to the end, as a failed write's is.
    const kept: Array<{ i: number; body: Buffer }> = [];
    const inFlight: Array<{ i: number; body: Buffer; release?: () => void }> = [];
    let i = 0;
    for await (const w of spool.read()) {
      expect(w.body.toString('utf8')).to.equal(bodyOf(i));
      buffers.add(w.body.buffer);
      if (i === 1234) kept.push({ i, body: w.body });
      else inFlight.push({ i, ...w });
      if (inFlight.length > 32) {
        const done = inFlight.shift()!;
        expect(done.body.toString('utf8')).to.equal(bodyOf(done.i));
        done.release?.();
      }
      i++;
    }
    expect(i).to.equal(n);
    for (const k of kept) expect(k.body.toString('utf8')).to.equal(bodyOf(k.i));
    // Some 12 chunks read; without reuse each would be a buffer of its own.
    expect(buffers.size).to.be.at.most(5);
    await spool.dispose();
  });

  it('is empty when nothing was added', async () => {
    const spool = await WriteSpool.create(dir());
    await spool.finish();
    expect(await readAll(spool)).to.deep.equal([]);
    await spool.dispose();
  });

  it('refuses what would break its record format, and reading before finish', async () => {
    const spool = await WriteSpool.create(dir());
    await spool.add('create', 'a', false, '{}').then(() => undefined);
    const errors = await Promise.all([
      spool.add('create', 'a b', false, '{}').catch((e: Error) => e.message),
      spool.add('create', 'a', false, '{"x":\n1}').catch((e: Error) => e.message),
      readAll(spool).catch((e: Error) => e.message),
    ]);
    expect(errors[0]).to.match(/has a space/);
    expect(errors[1]).to.match(/holds a newline/);
    expect(errors[2]).to.match(/still open/);
    await spool.dispose();
  });

  it('reports a spool file cut short (a partial last record)', async () => {
    const spool = await WriteSpool.create(dir());
    await spool.finish();
    await writeFile(spool.file, 'create 0 a {}\ncreate 0 b {"x"');
    const err = await readAll(spool).catch((e: Error) => e.message);
    expect(err).to.match(/partial record/);
    await spool.dispose();
  });
});

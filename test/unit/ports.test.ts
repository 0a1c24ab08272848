// test/support/ports.ts: ports for processes the tests start stay out of the ephemeral range
// that outgoing connections draw from, and are never handed out twice.
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { ephemeralLow, freePort } from '../support/ports.js';

describe('test ports', () => {
  it('reads the first port of the ephemeral range, and falls back to Linux default', () => {
    assert.equal(
      ephemeralLow(() => '40000\t60999\n'),
      40000,
    );
    assert.equal(
      ephemeralLow(() => 'garbage'),
      32768,
    );
    assert.equal(
      ephemeralLow(() => {
        throw new Error('ENOENT');
      }),
      32768,
    );
  });

  it('hands out distinct bindable ports below the ephemeral range', async () => {
    const low = ephemeralLow();
    const ports: number[] = [];
    for (let i = 0; i < 20; i++) ports.push(await freePort());
    assert.equal(new Set(ports).size, ports.length);
    for (const p of ports) assert.ok(p >= 10_000 && p < low, `${p} outside [10000, ${low})`);
    const s = createServer();
    await new Promise<void>((resolve) => s.listen(ports[0], '127.0.0.1', resolve));
    await new Promise<void>((resolve) => s.close(() => resolve()));
  });
});

// The bench's CPU by thread (bench/lib/controller-process.ts): read from /proc, and the
// difference of two readings per object.
import assert from 'node:assert/strict';
import { procThreadCpu, threadCpuMsPer } from '../../bench/lib/controller-process.js';

describe('bench: CPU by thread', () => {
  it("reads this process's threads, the main one as main", () => {
    const before = procThreadCpu(process.pid);
    let x = 0;
    for (let i = 0; i < 3e7; i++) x += i % 7;
    assert.ok(x > 0);
    const after = procThreadCpu(process.pid);
    assert.ok(after.main, 'a main thread');
    assert.ok(after.main.user + after.main.system >= before.main!.user + before.main!.system);
    assert.deepEqual(procThreadCpu(-1), {});
  });

  it('gives what each thread group used per object in ms, leaving out those that used none', () => {
    const before = { main: { user: 1, system: 0.5 }, V8Worker: { user: 0.2, system: 0 } };
    const after = {
      main: { user: 3, system: 0.7 },
      V8Worker: { user: 0.2, system: 0 },
      'libuv-worker': { user: 0.1, system: 0.01 },
    };
    assert.deepEqual(threadCpuMsPer(before, after, 1000), {
      main: { user: 2, system: 0.2 },
      'libuv-worker': { user: 0.1, system: 0.01 },
    });
  });
});

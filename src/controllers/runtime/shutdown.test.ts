import { EventEmitter } from 'node:events';
import { expect } from 'chai';
import { ManualClock, settle } from './clock.js';
import type { SignalSource } from './shutdown.js';
import { GracefulShutdown, ShutdownRequested } from './shutdown.js';

class FakeProcess extends EventEmitter implements SignalSource {
  readonly exits: number[] = [];
  override on(event: 'SIGTERM' | 'SIGINT', listener: () => void): this {
    return super.on(event, listener);
  }
  override off(event: 'SIGTERM' | 'SIGINT', listener: () => void): this {
    return super.off(event, listener);
  }
  exit(code: number): void {
    this.exits.push(code);
  }
}

describe('GracefulShutdown', () => {
  it('aborts the process signal, then runs hooks last-registered-first', async () => {
    const sd = new GracefulShutdown({ clock: new ManualClock(0) });
    const order: string[] = [];
    sd.onShutdown('http', () => {
      order.push(`http aborted=${sd.signal.aborted}`);
    });
    sd.onShutdown('controller', async () => {
      await Promise.resolve();
      order.push('controller');
    });
    const report = await sd.shutdown('test');
    expect(order).to.deep.equal(['controller', 'http aborted=true']);
    expect(sd.signal.reason).to.be.instanceOf(ShutdownRequested);
    expect(report).to.deep.include({
      reason: 'test',
      completed: ['controller', 'http'],
      exitCode: 0,
    });
    expect(await sd.shutdown('again')).to.equal(report);
  });

  it('reports a failing hook and still runs the others', async () => {
    const sd = new GracefulShutdown({ clock: new ManualClock(0) });
    const ran: string[] = [];
    sd.onShutdown('first', () => {
      ran.push('first');
    });
    sd.onShutdown('broken', () => {
      throw new Error('boom');
    });
    const report = await sd.shutdown();
    expect(ran).to.deep.equal(['first']);
    expect(report.failed.map((f) => f.name)).to.deep.equal(['broken']);
    expect(report.exitCode).to.equal(1);
  });

  it('stops waiting at the deadline, aborting the running hook and skipping the rest', async () => {
    const clock = new ManualClock(0);
    const sd = new GracefulShutdown({ clock, timeoutMs: 1000 });
    let hookSignal: AbortSignal | undefined;
    let lateRan = false;
    sd.onShutdown('late', () => {
      lateRan = true;
    });
    sd.onShutdown('stuck', (signal) => {
      hookSignal = signal;
      return new Promise(() => undefined);
    });
    const done = sd.shutdown();
    await clock.advance(999);
    expect(hookSignal?.aborted).to.equal(false);
    await clock.advance(1);
    const report = await done;
    expect(hookSignal?.aborted).to.equal(true);
    expect(lateRan).to.equal(false);
    expect(report.timedOut).to.deep.equal(['stuck', 'late']);
    expect(report.exitCode).to.equal(1);
  });

  it('shuts down on the first SIGTERM and exits with its code; a second signal exits at once', async () => {
    const sd = new GracefulShutdown({ clock: new ManualClock(0) });
    const proc = new FakeProcess();
    let release: () => void = () => undefined;
    sd.onShutdown('sync', () => new Promise<void>((r) => (release = r)));
    const uninstall = sd.installSignalHandlers(proc);
    proc.emit('SIGTERM');
    await settle();
    expect(sd.signal.aborted).to.equal(true);
    expect(proc.exits).to.deep.equal([]);
    proc.emit('SIGINT');
    expect(proc.exits).to.deep.equal([1]);
    release();
    await sd.shutdown();
    await settle();
    expect(proc.exits).to.deep.equal([1, 0]);
    uninstall();
    expect(proc.listenerCount('SIGTERM')).to.equal(0);
  });

  it('exitCodeAfter resolves once the work has ended and every hook has run', async () => {
    const sd = new GracefulShutdown({ clock: new ManualClock(0) });
    const proc = new FakeProcess();
    let release: () => void = () => undefined;
    sd.onShutdown('served API', () => new Promise<void>((r) => (release = r)));
    // The main loop: ends as soon as the signal aborts, before the other hooks.
    const work = new Promise<void>((r) => sd.signal.addEventListener('abort', () => r()));
    sd.onShutdown('controller', () => work);
    sd.installSignalHandlers(proc);
    let code: number | undefined;
    void sd.exitCodeAfter(work).then((c) => (code = c));
    proc.emit('SIGTERM');
    await settle();
    expect(code, 'not before the served API hook is done').to.equal(undefined);
    release();
    await settle();
    expect(code).to.equal(0);
    expect(proc.exits).to.deep.equal([0]);
  });

  it('unregisters hooks', async () => {
    const sd = new GracefulShutdown({ clock: new ManualClock(0) });
    const off = sd.onShutdown('x', () => undefined);
    off();
    expect((await sd.shutdown()).completed).to.deep.equal([]);
  });
});

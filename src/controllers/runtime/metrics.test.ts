import { expect } from 'chai';
import { ManualClock, settle } from './clock.js';
import { createMetricsRegistry, RuntimeMetrics } from './metrics.js';
import { WorkQueue } from './queue.js';
import { ItemExponentialFailureRateLimiter } from './ratelimiter.js';
import { TerminalError } from './workers.js';

/** The value of one sample of the registry's text output, or undefined. */
async function sample(metrics: RuntimeMetrics, line: string): Promise<number | undefined> {
  const text = await metrics.registry.metrics();
  const found = text.split('\n').find((l) => l.startsWith(line + ' '));
  return found === undefined ? undefined : Number(found.slice(line.length + 1));
}

describe('RuntimeMetrics', () => {
  it('counts reconciles by result, errors and terminal errors, and times them', async () => {
    const m = new RuntimeMetrics(createMetricsRegistry({ processMetrics: false }));
    const obs = m.reconcileObserver('clustercatalog');
    expect(
      await sample(
        m,
        'controller_runtime_reconcile_total{controller="clustercatalog",result="error"}',
      ),
    ).to.equal(0);
    obs.reconciled('a', 'success', 1500);
    obs.reconciled('a', 'error', 10, new Error('x'));
    obs.reconciled('a', 'error', 10, new TerminalError('bad spec'));
    obs.reconciled('a', 'error', 10, new Error('wrapped', { cause: new TerminalError('bad') }));
    obs.reconciled('a', 'requeue_after', 10);
    const p = 'controller_runtime_reconcile_total{controller="clustercatalog",result=';
    expect(await sample(m, `${p}"success"}`)).to.equal(1);
    expect(await sample(m, `${p}"error"}`)).to.equal(3);
    expect(await sample(m, `${p}"requeue_after"}`)).to.equal(1);
    expect(
      await sample(m, 'controller_runtime_reconcile_errors_total{controller="clustercatalog"}'),
    ).to.equal(3);
    expect(
      await sample(
        m,
        'controller_runtime_terminal_reconcile_errors_total{controller="clustercatalog"}',
      ),
    ).to.equal(2);
    expect(
      await sample(
        m,
        'controller_runtime_reconcile_time_seconds_count{controller="clustercatalog"}',
      ),
    ).to.equal(5);
    expect(
      await sample(m, 'controller_runtime_reconcile_time_seconds_sum{controller="clustercatalog"}'),
    ).to.be.closeTo(1.54, 1e-9);
  });

  it('reports work-queue depth, adds, retries and in-flight work', async () => {
    const m = new RuntimeMetrics(createMetricsRegistry({ processMetrics: false }));
    const clock = new ManualClock(0);
    const q = new WorkQueue({
      clock,
      rateLimiter: new ItemExponentialFailureRateLimiter(5, 1000),
      metrics: m.queueSink('clustercatalog'),
    });
    m.watchQueue('clustercatalog', q);
    q.add('a');
    q.add('b');
    expect(await sample(m, 'workqueue_depth{name="clustercatalog"}')).to.equal(2);
    await q.get();
    await clock.advance(2500);
    expect(await sample(m, 'workqueue_depth{name="clustercatalog"}')).to.equal(1);
    expect(await sample(m, 'workqueue_adds_total{name="clustercatalog"}')).to.equal(2);
    expect(
      await sample(m, 'workqueue_longest_running_processor_seconds{name="clustercatalog"}'),
    ).to.equal(2.5);
    expect(await sample(m, 'workqueue_unfinished_work_seconds{name="clustercatalog"}')).to.equal(
      2.5,
    );
    q.done('a');
    q.addRateLimited('a');
    await settle();
    expect(await sample(m, 'workqueue_retries_total{name="clustercatalog"}')).to.equal(1);
    expect(
      await sample(m, 'workqueue_work_duration_seconds_count{name="clustercatalog"}'),
    ).to.equal(1);
  });

  it('reports leader status at scrape time', async () => {
    const m = new RuntimeMetrics(createMetricsRegistry({ processMetrics: false }));
    let leading = false;
    m.watchLeadership('catalogd', { isLeader: () => leading });
    expect(await sample(m, 'leader_election_master_status{name="catalogd"}')).to.equal(0);
    leading = true;
    expect(await sample(m, 'leader_election_master_status{name="catalogd"}')).to.equal(1);
  });

  it('includes process metrics by default (RSS for the memory targets)', async () => {
    const registry = createMetricsRegistry();
    expect(await registry.metrics()).to.include('process_resident_memory_bytes');
  });
});

import { expect } from 'chai';
import { CommandError } from '../util/command-error.js';
import { parseControllerOptions } from './controller-options.js';

const parse = (...args: string[]) => parseControllerOptions(args)!;

describe('cmd/controller-options: write pacing flags', () => {
  it('--write-pacing: between 4 and 32 writes in flight, at 2.5 × the latency baseline', () => {
    const o = parse('--write-pacing');
    expect(o.writeConcurrency).to.equal(32);
    expect(o.writePacing).to.deep.equal({ minWriteConcurrency: 4, latencyTolerance: 2.5 });
  });

  it('no pacing by default: the window stays at --write-concurrency', () => {
    expect(parse().writePacing).to.equal(undefined);
    expect(parse('--no-write-pacing').writePacing).to.equal(undefined);
  });

  it('keeps the floor within the ceiling', () => {
    const o = parse('--write-pacing', '--write-concurrency=1', '--min-write-concurrency=8');
    expect(o.writePacing?.minWriteConcurrency).to.equal(1);
  });

  it('refuses a tolerance of 1 or less, and a floor that is not a positive integer', () => {
    expect(() => parse('--write-latency-tolerance=1')).to.throw(CommandError, /above 1/);
    expect(() => parse('--write-latency-tolerance=x')).to.throw(CommandError);
    expect(() => parse('--min-write-concurrency=0')).to.throw(CommandError, /positive integer/);
  });

  it('--drift-watch-pause-writes: 1000 by default, 0 never, whole numbers only', () => {
    expect(parse().driftWatchPauseWrites).to.equal(1000);
    expect(parse('--drift-watch-pause-writes=0').driftWatchPauseWrites).to.equal(0);
    expect(parse('--drift-watch-pause-writes=50').driftWatchPauseWrites).to.equal(50);
    for (const bad of ['-1', '1.5', 'many']) {
      expect(() => parse(`--drift-watch-pause-writes=${bad}`)).to.throw(
        /--drift-watch-pause-writes must be a whole number of writes/,
      );
    }
  });

  it('--max-write-rate: no ceiling by default; a number of writes a second, fractions too', () => {
    expect(parse().maxWriteRate).to.equal(0);
    expect(parse('--max-write-rate=5').maxWriteRate).to.equal(5);
    expect(parse('--max-write-rate=0.5').maxWriteRate).to.equal(0.5);
    for (const bad of ['-1', 'fast', '', 'Infinity'])
      expect(() => parse(`--max-write-rate=${bad}`)).to.throw(
        CommandError,
        /--max-write-rate must be a number of writes a second/,
      );
  });
});

describe('cmd/controller-options: leader election periods', () => {
  it("upstream catalogd's periods by default: 137 s lease, 107 s renew deadline, 26 s retry", () => {
    expect(parse().leaderElection).to.deep.equal({
      leaseDurationMs: 137_000,
      renewDeadlineMs: 107_000,
      retryPeriodMs: 26_000,
    });
    expect(
      parse(
        '--leader-elect-lease-duration=15s',
        '--leader-elect-renew-deadline=10s',
        '--leader-elect-retry-period=2s',
      ).leaderElection,
    ).to.deep.equal({ leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000 });
  });

  it('refuses periods leader election cannot keep, each in one line', () => {
    expect(() => parse('--leader-elect-retry-period=0s')).to.throw(CommandError, /at least 1s/);
    expect(() => parse('--leader-elect-lease-duration=100s')).to.throw(
      CommandError,
      /longer than --leader-elect-renew-deadline/,
    );
    expect(() => parse('--leader-elect-retry-period=100s')).to.throw(CommandError, /1\.2 ×/);
    expect(() => parse('--leader-elect-lease-duration=137500ms')).to.throw(
      CommandError,
      /whole seconds/,
    );
  });
});

describe('cmd/controller-options: --memory-reclaim-interval', () => {
  it('judges the working process every 2 s by default; 0 turns reclaiming off', () => {
    expect(parse().memoryReclaimIntervalMs).to.equal(2_000);
    expect(parse('--memory-reclaim-interval=1m').memoryReclaimIntervalMs).to.equal(60_000);
    expect(parse('--memory-reclaim-interval=0').memoryReclaimIntervalMs).to.equal(0);
  });

  it('refuses what is not a duration, and intervals under a second', () => {
    expect(() => parse('--memory-reclaim-interval=often')).to.throw(CommandError, /at least 1s/);
    expect(() => parse('--memory-reclaim-interval=100ms')).to.throw(CommandError, /at least 1s/);
  });
});

describe('cmd/controller-options: --metrics-secure', () => {
  const cert = ['--tls-cert-file=/tls/tls.crt', '--tls-key-file=/tls/tls.key'];

  it('is on with a serving certificate and off without one, unless said', () => {
    expect(parse().metricsSecure).to.equal(false);
    expect(parse(...cert).metricsSecure).to.equal(true);
    expect(parse(...cert, '--metrics-secure').metricsSecure).to.equal(true);
    expect(parse(...cert, '--no-metrics-secure').metricsSecure).to.equal(false);
    expect(parse('--no-metrics-secure').metricsSecure).to.equal(false);
  });

  it('refuses --metrics-secure without a certificate, saying what to give', () => {
    expect(() => parse('--metrics-secure')).to.throw(
      CommandError,
      '--metrics-secure serves the serving certificate: give --tls-cert-file and --tls-key-file, or --no-metrics-secure for plain HTTP',
    );
  });
});

describe('cmd/controller-options: the content server limits (--server-*)', () => {
  it("upstream catalogd's 5 s read timeout and 512 connections by default", () => {
    expect(parse().serverLimits).to.deep.equal({
      maxConnections: 512,
      headersTimeoutMs: 5_000,
      requestTimeoutMs: 5_000,
      keepAliveTimeoutMs: 5_000,
    });
    expect(
      parse(
        '--server-max-connections=64',
        '--server-headers-timeout=2s',
        '--server-request-timeout=1m',
        '--server-keep-alive-timeout=30s',
      ).serverLimits,
    ).to.deep.equal({
      maxConnections: 64,
      headersTimeoutMs: 2_000,
      requestTimeoutMs: 60_000,
      keepAliveTimeoutMs: 30_000,
    });
  });

  it('refuses a cap that is not a positive integer, timeouts under a second, headers past the request', () => {
    for (const bad of ['0', '-1', '1.5', 'many'])
      expect(() => parse(`--server-max-connections=${bad}`)).to.throw(
        CommandError,
        /--server-max-connections must be a positive integer/,
      );
    for (const flag of ['headers', 'request', 'keep-alive'])
      for (const bad of ['0', '100ms', 'soon'])
        expect(() => parse(`--server-${flag}-timeout=${bad}`)).to.throw(
          CommandError,
          new RegExp(`--server-${flag}-timeout must be a duration of at least 1s`),
        );
    expect(() => parse('--server-headers-timeout=10s')).to.throw(
      CommandError,
      '--server-headers-timeout must not be longer than --server-request-timeout',
    );
  });
});

describe('cmd/controller-options: --graphql, and Go-style values of boolean flags', () => {
  const parse = (...args: string[]) => parseControllerOptions(args)!;

  it('answers GraphQL by default; --no-graphql and --graphql=false turn it off', () => {
    expect(parse().graphql).to.equal(true);
    expect(parse('--graphql').graphql).to.equal(true);
    expect(parse('--graphql=true').graphql).to.equal(true);
    expect(parse('--no-graphql').graphql).to.equal(false);
    expect(parse('--graphql=false').graphql).to.equal(false);
  });

  it('takes =true and =false for every boolean flag, and nothing else after =', () => {
    expect(parse('--leader-elect=false').flags['leader-elect']).to.equal(false);
    expect(parse('--write-pacing=true').writePacing).not.to.equal(undefined);
    expect(() => parse('--graphql=no')).to.throw(CommandError);
    expect(() => parse('--workers=false')).to.throw(CommandError, /positive integer/);
  });
});

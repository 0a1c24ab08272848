import { expect } from 'chai';
import { pino } from 'pino';
import { clockTime, formatLogLine, textLogDestination } from './log-text.js';

// 2026-11-24T18:05:09.007Z
const TIME = Date.UTC(2026, 10, 24, 18, 5, 9, 7);

describe('cmd/log-text: formatLogLine', () => {
  it('writes time, level, message, then the other fields as key=value', () => {
    const line = JSON.stringify({
      level: 30,
      time: TIME,
      component: 'catalogd',
      msg: 'reconciled',
      catalog: 'sample',
      durationMs: 42,
      outcome: { objectCount: 3 },
    });
    expect(formatLogLine(`${line}\n`, true)).to.equal(
      '18:05:09.007 INFO  reconciled catalog=sample durationMs=42 outcome={"objectCount":3}\n',
    );
  });

  it('quotes strings with spaces, and shows an error by its message, not its stack', () => {
    const line = JSON.stringify({
      level: 40,
      time: TIME,
      msg: 'reconcile failed',
      catalog: 'a b',
      err: { type: 'Error', message: 'pull failed: 401', stack: 'Error: pull failed\n    at x' },
    });
    expect(formatLogLine(line, true)).to.equal(
      '18:05:09.007 WARN  reconcile failed catalog="a b" err="pull failed: 401"\n',
    );
  });

  it('writes no control character of a logged value raw: an error naming a hostile file', () => {
    const file = 'evil\n\x1b[1A\x1b[2K\u009b2J.json';
    const line = JSON.stringify({
      level: 40,
      time: TIME,
      msg: 'reconcile failed \x1b]0;title\x07',
      catalog: 'x\x1b[2J',
      err: { type: 'FbcError', message: `${file}: missing schema`, stack: 'FbcError' },
      detail: { note: '\u009b2J' },
    });
    expect(formatLogLine(line, true)).to.equal(
      '18:05:09.007 WARN  reconcile failed ^[]0;title^G catalog="x\\u001b[2J" err="evil\\n\\u001b[1A\\u001b[2K\\u009b2J.json: missing schema" detail={"note":"\\u009b2J"}\n',
    );
  });

  it('names every pino level and passes a line that is not JSON through', () => {
    const levels = [10, 20, 30, 40, 50, 60].map(
      (level) => formatLogLine(JSON.stringify({ level, time: TIME, msg: 'm' }), true).split(' ')[1],
    );
    expect(levels).to.deep.equal(['TRACE', 'DEBUG', 'INFO', 'WARN', 'ERROR', 'FATAL']);
    expect(formatLogLine('not json', true)).to.equal('not json\n');
    expect(formatLogLine('[1,2]\n', true)).to.equal('[1,2]\n');
  });

  it('formats a clock time with milliseconds', () => {
    expect(clockTime(TIME, true)).to.equal('18:05:09.007');
    expect(clockTime(Date.UTC(2026, 0, 1, 0, 0, 0, 999), true)).to.equal('00:00:00.999');
  });

  it('is a destination pino writes to', () => {
    const written: string[] = [];
    const log = pino(
      { base: { component: 'catalogd' }, timestamp: () => `,"time":${TIME}` },
      textLogDestination({ write: (s: string) => written.push(s) }),
    );
    log.info({ catalog: 'sample' }, 'catalogd controller starting');
    expect(written).to.have.length(1);
    expect(written[0]).to.match(
      /^\d\d:\d\d:\d\d\.007 INFO {2}catalogd controller starting catalog=sample\n$/,
    );
  });
});

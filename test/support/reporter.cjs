// Mocha's spec reporter, plus a machine-readable count of the real results, written to
// .local/test-results/<suite>.json so that .ci/run can print the `N passed, N failed` line.
// A hook failure counts as a failure (mocha reports it through EVENT_TEST_FAIL too).
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const Mocha = require('mocha');

const { EVENT_RUN_END, EVENT_TEST_PASS, EVENT_TEST_FAIL, EVENT_TEST_PENDING } =
  Mocha.Runner.constants;

class CountingSpecReporter extends Mocha.reporters.Spec {
  constructor(runner, options) {
    super(runner, options);
    const suite = (options.reporterOption && options.reporterOption.suite) || 'tests';
    const counts = { passed: 0, failed: 0, skipped: 0 };
    runner.on(EVENT_TEST_PASS, () => counts.passed++);
    runner.on(EVENT_TEST_FAIL, () => counts.failed++);
    runner.on(EVENT_TEST_PENDING, () => counts.skipped++);
    runner.once(EVENT_RUN_END, () => {
      const dir = path.resolve('.local', 'test-results');
      fs.mkdirSync(dir, { recursive: true });
      fs.writeFileSync(path.join(dir, `${suite}.json`), JSON.stringify(counts) + '\n');
    });
  }
}

module.exports = CountingSpecReporter;

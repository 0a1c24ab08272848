// Integration and e2e tests against the real local control plane and registry.
// test/e2e/hooks.ts brings them up once per run (or reuses a running one).
const namedFiles = process.argv.slice(2).some((a) => a.endsWith('.test.ts'));
module.exports = {
  'node-option': ['import=tsx'],
  require: ['test/e2e/hooks.ts'],
  // Mocha appends files named on the command line to `spec`: naming some runs only those.
  spec: namedFiles ? [] : ['test/e2e/**/*.test.ts'],
  reporter: './test/support/reporter.cjs',
  'reporter-option': ['suite=e2e'],
  timeout: 120000,
  slow: 5000,
};

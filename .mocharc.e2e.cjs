// Integration and e2e tests against the real local control plane and registry.
// test/e2e/hooks.ts brings them up once per run (or reuses a running one).
module.exports = {
  'node-option': ['import=tsx'],
  require: ['test/e2e/hooks.ts'],
  spec: ['test/e2e/**/*.test.ts'],
  reporter: './test/support/reporter.cjs',
  'reporter-option': ['suite=e2e'],
  timeout: 120000,
  slow: 5000,
};

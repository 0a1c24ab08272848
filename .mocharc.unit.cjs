// Unit tests: pure logic, beside the code, no I/O beyond temp files.
module.exports = {
  'node-option': ['import=tsx'],
  spec: ['src/**/*.test.ts', 'test/unit/**/*.test.ts', 'hack/**/*.test.ts'],
  reporter: './test/support/reporter.cjs',
  'reporter-option': ['suite=unit'],
  timeout: 20000,
};

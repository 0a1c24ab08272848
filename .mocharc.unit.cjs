// Unit tests: pure logic, beside the code, no I/O beyond temp files.
const namedFiles = process.argv.slice(2).some((a) => a.endsWith('.test.ts'));
module.exports = {
  'node-option': ['import=tsx'],
  // Mocha appends files named on the command line to `spec`: naming some runs only those.
  spec: namedFiles ? [] : ['src/**/*.test.ts', 'test/unit/**/*.test.ts', 'hack/**/*.test.ts'],
  reporter: './test/support/reporter.cjs',
  'reporter-option': ['suite=unit'],
  timeout: 20000,
};

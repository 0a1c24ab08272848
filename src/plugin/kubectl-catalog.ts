#!/usr/bin/env node
// `kubectl-catalog`: the kubectl plugin (`kubectl catalog ...` when this executable is on PATH).
// See docs/kubectl-catalog.md.
import { argv, exit, stderr, stdout } from 'node:process';
import { run } from './main.js';

const code = await run(argv.slice(2), {
  stdout: (s) => stdout.write(s),
  stderr: (s) => stderr.write(s),
});
// Let stdout drain before exiting (large -o json outputs to a pipe).
if (stdout.writableNeedDrain) await new Promise((r) => stdout.once('drain', r));
exit(code);

// A temporary directory for each test of a suite.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

/**
 * Registers mocha hooks of the calling suite: before each test, a new directory in the system's
 * temporary one, named from `prefix`; after it, the directory removed with all it holds.
 * Returns the current test's directory.
 */
export function tempDirEach(prefix: string): () => string {
  let dir: string | undefined;
  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), prefix));
  });
  afterEach(async () => {
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
    dir = undefined;
  });
  return () => {
    if (dir === undefined) throw new Error('tempDirEach: no test is running');
    return dir;
  };
}

// The benches that run as their own processes (fbc-parse, unpack-entries, http): each writes
// bench/results/<name>.json, read back here.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { RESULTS, ROOT, log } from '../lib/config.js';

export function childBench(name: string, args: string[], timeoutMs = 300_000): unknown {
  log(`running bench/${name}.ts ${args.join(' ')}`);
  const r = spawnSync(
    process.execPath,
    ['--import', 'tsx', path.join(ROOT, 'bench', `${name}.ts`), ...args],
    {
      cwd: ROOT,
      encoding: 'utf8',
      timeout: timeoutMs,
      maxBuffer: 1 << 24,
    },
  );
  if (r.status !== 0) {
    log(`bench/${name}.ts failed: ${(r.stderr || String(r.error)).slice(-500)}`);
    return { error: (r.stderr || String(r.error)).slice(-500) };
  }
  try {
    return JSON.parse(readFileSync(path.join(RESULTS, `${name}.json`), 'utf8')) as unknown;
  } catch (err) {
    return { error: String(err) };
  }
}

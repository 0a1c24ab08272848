// The apiserver's own CPU profile of a phase (BENCH_PACING_PPROF=DIR): kube-apiserver serves Go's
// net/http/pprof (--profiling, on by default) to a user allowed the non-resource URL
// /debug/pprof, as the bench's admin is. `go tool pprof -top -diff_base A.pb.gz B.pb.gz`
// compares two phases by function: where a write of one contender costs the apiserver more
// than another's.
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import type { Api } from './api.js';

const PPROF_DIR = process.env.BENCH_PACING_PPROF;

/**
 * After `afterMs`, a `seconds`-long CPU profile of the apiserver, written to
 * `$BENCH_PACING_PPROF/<label>.pb.gz`; nothing when not asked for, or when the apiserver refused
 * (a profile is a diagnosis, never a reason to fail a phase).
 */
export async function captureApiserverProfile(
  api: Api,
  label: string,
  afterMs: number,
  seconds: number,
): Promise<void> {
  if (PPROF_DIR === undefined) return;
  await delay(afterMs);
  const r = await api.request('GET', `/debug/pprof/profile?seconds=${seconds}`);
  if (r.status !== 200) return;
  await mkdir(PPROF_DIR, { recursive: true });
  await writeFile(path.join(PPROF_DIR, `${label}.pb.gz`), r.bytes);
}

// What a bench run measures and where, from the environment (the BENCH_* variables of
// bench/run.ts's header), and the small helpers every part logs and rounds with.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { deployedEnv, deployedMallocEnv } from '../../test/support/deployment.js';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const RESULTS = path.join(ROOT, 'bench', 'results');
export const reuse = process.env.BENCH_REUSE_CLUSTER === '1';
export const LOCAL = reuse
  ? path.resolve(process.env.CATALOGD_LOCAL ?? path.join(ROOT, '.local'))
  : path.join(ROOT, '.local', 'bench');
export const SIZES = (process.env.BENCH_SIZES ?? '5,30,50').split(',').map(Number);
/**
 * Raw-client levels: a number is a concurrency, optionally followed by flags; a level with flags
 * is reported but not counted in the raw limit. `w` (`32w`): the level runs with a metadata-only
 * watch of CatalogMetadata open, like the controller's drift watch. `m` (`32m`): each POST asks
 * for a metadata-only response, as the controller's writes do.
 */
export const CONCURRENCY = (process.env.BENCH_CONCURRENCY ?? '8,16,32,32m').split(',');

/** A raw-client level (`32`, `32m`, `32w`) read: its concurrency and flags. */
export function rawLevel(level: string) {
  const flags = level.replace(/^\d+/, '');
  return {
    concurrency: parseInt(level, 10),
    /** No flags: part of the raw limit. */
    plain: flags === '',
    metadataResponses: flags.includes('m'),
    withWatch: flags.includes('w'),
  };
}
export const MB = 1048576;
/** Cold syncs per size (each into a fresh catalog name, by a fresh controller). */
export const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? '3'));
/** Results file base name; only `latest` updates bench/README.md. */
export const OUT = process.env.BENCH_OUT ?? 'latest';
/** `controlPlane`: run only bench/control-plane.ts's section. */
export const ONLY = process.env.BENCH_ONLY;
/** Where apiserver CPU profiles of the write phases go (unset: none are taken). */
export const PPROF_DIR = process.env.BENCH_PPROF
  ? path.resolve(process.env.BENCH_PPROF)
  : undefined;
export const PPROF_SECONDS = 10;

/**
 * The controller runs with the NODE_OPTIONS and the glibc malloc tunables (MALLOC_ARENA_MAX,
 * MALLOC_MMAP_THRESHOLD_) of the Deployment, as deployed (BENCH_NODE_OPTIONS overrides the former).
 */
export const NODE_OPTIONS = process.env.BENCH_NODE_OPTIONS ?? deployedEnv('NODE_OPTIONS') ?? '';
export const MALLOC_ENV = deployedMallocEnv();
export const MALLOC_ARENA_MAX = MALLOC_ENV.MALLOC_ARENA_MAX;

export const log = (msg: string) =>
  process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${msg}\n`);
export const round = (x: number, d = 2) => Number(x.toFixed(d));

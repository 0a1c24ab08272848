// `rm -rf` with memory and event-loop time bounded whatever the number of entries.
//
// Why not fs.promises.rm(dir, { recursive: true }): Node 24 implements it (lib/internal/fs/
// rimraf.js) by starting an lstat and an unlink for every entry of a directory at once. For an
// unpacked catalog of 100,000 files that is 100,000 requests in flight, each with native
// memory (libuv request, path Buffer) that glibc keeps after they are freed: measured on one
// process, RSS 51 → 226 MB, still 225 MB after a collection, with a V8 heap of 11 MB
// (docs/bounds.md). fs.rmSync does not, but holds the event loop for the whole tree (1.1 s for
// 100,000 files), which no catalog may do (issue 33 point 1).
//
// Here a directory is emptied a batch of entries at a time: each batch is read afresh (the
// entries already removed are gone, so nothing is skipped or read twice), its files unlinked
// synchronously (a few milliseconds for a batch on a local disk), its subdirectories removed the
// same way, then the event loop gets a turn. Memory: one batch of names per level of depth.
import type { Dirent } from 'node:fs';
import { rmdirSync, unlinkSync } from 'node:fs';
import { lstat, opendir } from 'node:fs/promises';
import path from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';

/** Entries unlinked between two turns of the event loop. */
export const REMOVE_BATCH = 256;

function isMissing(err: unknown): boolean {
  return (err as NodeJS.ErrnoException | undefined)?.code === 'ENOENT';
}

/** Runs a removal; a path already gone is removed (as rm's `force`). */
function quietly(remove: () => void): void {
  try {
    remove();
  } catch (err) {
    if (!isMissing(err)) throw err;
  }
}

/** Up to `n` entries of `dir`, read from its start. */
async function firstEntries(dir: string, n: number): Promise<Dirent[]> {
  const out: Dirent[] = [];
  const d = await opendir(dir, { bufferSize: Math.min(n, 1024) });
  try {
    for (let e = await d.read(); e !== null; e = out.length < n ? await d.read() : null)
      out.push(e);
  } finally {
    await d.close();
  }
  return out;
}

async function emptyDirectory(dir: string, batch: number): Promise<void> {
  for (;;) {
    let entries: Dirent[];
    try {
      entries = await firstEntries(dir, batch);
    } catch (err) {
      if (isMissing(err)) return;
      throw err;
    }
    if (entries.length === 0) return;
    for (const e of entries) {
      const p = path.join(dir, e.name);
      // A symbolic link is not a directory here (lstat semantics): the link goes, not its target.
      if (e.isDirectory()) await emptyDirectory(p, batch).then(() => quietly(() => rmdirSync(p)));
      else quietly(() => unlinkSync(p));
    }
    await nextTurn();
  }
}

/**
 * Removes `target` and everything under it, as `rm -rf`: a path that does not exist is not an
 * error; symbolic links are removed, never followed. `batch`: entries per turn (tests).
 */
export async function removeTree(target: string, batch = REMOVE_BATCH): Promise<void> {
  let isDir: boolean;
  try {
    isDir = (await lstat(target)).isDirectory();
  } catch (err) {
    if (isMissing(err)) return;
    throw err;
  }
  if (isDir) {
    await emptyDirectory(target, batch);
    quietly(() => rmdirSync(target));
  } else quietly(() => unlinkSync(target));
}

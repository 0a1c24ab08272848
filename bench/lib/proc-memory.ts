// A process's resident memory split as the kernel sees it (/proc/<pid>/smaps_rollup): anonymous
// pages (heaps: V8's, malloc's; stacks) and file-backed ones (the executable and libraries).
import { readFileSync } from 'node:fs';

export interface ResidentMemory {
  /** Rss: every resident page of the process. */
  rssBytes: number;
  /** Anonymous: heap, malloc arenas, stacks. */
  anonymousBytes: number;
  /** The rest of Rss: pages of mapped files (the binary, libraries) and shared memory. */
  fileBytes: number;
}

/** The Rss and Anonymous lines of a smaps_rollup text (kB), in bytes. */
export function parseSmapsRollup(text: string): ResidentMemory {
  const kb = (field: string): number => {
    const m = new RegExp(`^${field}:\\s+(\\d+) kB$`, 'm').exec(text);
    if (!m) throw new Error(`smaps_rollup has no ${field} line`);
    return Number(m[1]) * 1024;
  };
  const rssBytes = kb('Rss');
  const anonymousBytes = kb('Anonymous');
  return { rssBytes, anonymousBytes, fileBytes: rssBytes - anonymousBytes };
}

/** The resident memory of process `pid` now. */
export function residentMemory(pid: number): ResidentMemory {
  return parseSmapsRollup(readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'));
}

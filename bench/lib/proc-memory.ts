// A process's resident memory split as the kernel sees it: anonymous pages (heaps: V8's, malloc's;
// stacks) and file-backed ones (the executable and libraries) from /proc/<pid>/smaps_rollup, and
// the part of the anonymous pages in glibc's main malloc arena (the `[heap]` mapping of smaps).
import { readFileSync } from 'node:fs';

export interface ResidentMemory {
  /** Rss: every resident page of the process. */
  rssBytes: number;
  /** Anonymous: heaps, malloc arenas, stacks. */
  anonymousBytes: number;
  /** The rest of Rss: pages of mapped files (the binary, libraries) and shared memory. */
  fileBytes: number;
  /** Rss of the `[heap]` mapping: glibc's main arena (brk); 0 for a process without one. */
  mainArenaBytes: number;
}

const kbLine = (text: string, field: string): number | undefined => {
  const m = new RegExp(`^${field}:\\s+(\\d+) kB$`, 'm').exec(text);
  return m ? Number(m[1]) * 1024 : undefined;
};

/** The Rss and Anonymous lines of a smaps_rollup text (kB), in bytes. */
export function parseSmapsRollup(text: string): Omit<ResidentMemory, 'mainArenaBytes'> {
  const kb = (field: string): number => {
    const v = kbLine(text, field);
    if (v === undefined) throw new Error(`smaps_rollup has no ${field} line`);
    return v;
  };
  const rssBytes = kb('Rss');
  const anonymousBytes = kb('Anonymous');
  return { rssBytes, anonymousBytes, fileBytes: rssBytes - anonymousBytes };
}

/** The Rss of the `[heap]` mapping in a smaps text, in bytes (0 without one). */
export function mainArenaRss(smaps: string): number {
  const start = smaps.search(/^[0-9a-f]+-[0-9a-f]+ \S+ \S+ \S+ \S+\s+\[heap\]$/m);
  if (start < 0) return 0;
  return kbLine(smaps.slice(start, smaps.indexOf('\nVmFlags', start)), 'Rss') ?? 0;
}

/** The resident memory of process `pid` now. */
export function residentMemory(pid: number): ResidentMemory {
  return {
    ...parseSmapsRollup(readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8')),
    mainArenaBytes: mainArenaRss(readFileSync(`/proc/${pid}/smaps`, 'utf8')),
  };
}

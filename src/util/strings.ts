// V8 represents a substring of 13 or more characters as a slice that points into its parent
// string, and the slice keeps the whole parent alive. The YAML parser (src/fbc) cuts scalars out
// of the document text, so a blob's name kept for the length of a sync (the HTTP revision's string
// table, the plan) would pin its whole document: about 10 MB of YAML text for a 50 MB catalog
// (a heap snapshot, bench/README.md, stop 19).

/** A copy of `s` that shares no memory with the string it may have been cut from. */
export function detachString(s: string): string {
  // Below V8's minimum slice length a substring is always a copy already.
  if (s.length < 13) return s;
  // JSON.parse builds a new flat string; the round trip is exact for every string, lone
  // surrogates included.
  return JSON.parse(JSON.stringify(s)) as string;
}

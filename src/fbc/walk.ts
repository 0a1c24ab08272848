// Lists the files of a catalog directory that are FBC files, in the order operator-registry
// walks them (fs.WalkDir: depth-first, entries sorted by name bytes), skipping `.indexignore`
// files and everything they ignore. Only regular files are listed (no symlinks, devices).
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { displayName } from '../util/terminal-text.js';
import { Yielder } from '../util/yielder.js';
import { FbcError } from './errors.js';
import { IgnoreRules, type StepBudget } from './gitignore.js';

const INDEX_IGNORE = '.indexignore';

/** The directory access the walker needs; tests inject an in-memory one. */
export interface DirReader {
  /** Entries of a directory (relative path, '' for the root). */
  list(dir: string): Promise<{ name: string; kind: 'dir' | 'file' | 'other' }[]>;
  readText(file: string): Promise<string>;
}

export function fsDirReader(root: string): DirReader {
  return {
    async list(dir) {
      const entries = await readdir(path.join(root, dir), { withFileTypes: true });
      return entries.map((e) => ({
        name: e.name,
        kind: e.isDirectory() ? 'dir' : e.isFile() ? 'file' : 'other',
      }));
    },
    readText: (file) => readFile(path.join(root, file), 'utf8'),
  };
}

/** ` (ENOENT)` for a Node.js system error: deterministic, unlike its message (which has paths). */
function errnoSuffix(err: unknown): string {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  return typeof code === 'string' ? ` (${code})` : '';
}

function byteOrder(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a), Buffer.from(b));
}

interface Scope {
  /** Directory of the .indexignore ('' for the root), paths in it are relative to it. */
  dir: string;
  rules: IgnoreRules;
}

/**
 * NFA steps of pattern matching between two turns of the event loop: a few milliseconds (5,000 to 7,000 steps a
 * millisecond on the red team pattern, `**` and `/a/` repeated 14 times). Every match is linear, so no single one holds the loop long.
 */
export const MATCH_STEPS_PER_TURN = 20_000;

export interface ListOptions {
  /** Aborts the walk (checked at each turn of the event loop). */
  signal?: AbortSignal | undefined;
}

/**
 * Patterns of every .indexignore apply to the files under its directory, relative to it. As in
 * go-git's matcher that operator-registry uses, all patterns form one list in walk order and the
 * last pattern that matches decides, so a deeper .indexignore (walked later) overrides its parents.
 */
async function isIgnored(scopes: Scope[], file: string, budget: StepBudget): Promise<boolean> {
  let ignored = false;
  for (const s of scopes) {
    if (s.dir !== '' && !file.startsWith(`${s.dir}/`)) continue;
    const rel = s.dir === '' ? file : file.slice(s.dir.length + 1);
    const r = await s.rules.test(rel, budget);
    if (r.ignored) ignored = true;
    else if (r.unignored) ignored = false;
  }
  return ignored;
}

/** Relative, `/`-separated paths of the FBC files under the root, in walk order. */
export async function listCatalogFiles(
  reader: DirReader,
  opts: ListOptions = {},
): Promise<string[]> {
  const files: string[] = [];
  const scopes: Scope[] = [];
  const visit = async (dir: string): Promise<void> => {
    let entries;
    try {
      entries = await reader.list(dir);
    } catch (cause) {
      throw new FbcError(`cannot read directory ${displayName(dir || '.')}${errnoSuffix(cause)}`, {
        retryClass: 'io',
        cause,
      });
    }
    entries.sort((a, b) => byteOrder(a.name, b.name));
    for (const e of entries) {
      const rel = dir === '' ? e.name : `${dir}/${e.name}`;
      if (e.kind === 'dir') await visit(rel);
      else if (e.kind === 'file') {
        if (e.name === INDEX_IGNORE) {
          let text: string;
          try {
            text = await reader.readText(rel);
          } catch (cause) {
            throw new FbcError(`cannot read ${displayName(rel)}${errnoSuffix(cause)}`, {
              retryClass: 'io',
              cause,
            });
          }
          // go-git trims each line and skips blanks and comments, like git.
          const lines = text
            .split(/\r?\n/)
            .map((l) => l.trim())
            .filter((l) => l !== '' && !l.startsWith('#'));
          scopes.push({ dir, rules: new IgnoreRules(lines) });
        } else files.push(rel);
      }
    }
  };
  await visit('');
  if (scopes.length === 0) return files;
  const turns = new Yielder(MATCH_STEPS_PER_TURN, opts.signal);
  const kept: string[] = [];
  for (const f of files) if (!(await isIgnored(scopes, f, turns))) kept.push(f);
  return kept;
}

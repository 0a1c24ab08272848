// The <dir> argument of `catalogd render` and `catalogd push`, checked before the walk: the walk
// names directories relative to the root ("cannot read directory ."), the user wants the path.
import { stat } from 'node:fs/promises';

/** Why `dir` cannot be read as a catalog directory, naming it; undefined when it is one. */
export async function catalogDirProblem(dir: string): Promise<string | undefined> {
  try {
    return (await stat(dir)).isDirectory() ? undefined : `${dir}: not a directory`;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return `${dir}: no such directory`;
    return undefined; // EACCES and the like: the walk's own error says what failed
  }
}

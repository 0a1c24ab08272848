// What the source e2e suites (source, source-auth, source-faults) share: a catalog directory of
// one package to push.
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';

/** Writes package `pkg`'s olm.package blob to DIR/PKG/catalog.json, making the directories. */
export async function writePackage(dir: string, pkg: string): Promise<void> {
  await mkdir(path.join(dir, pkg), { recursive: true });
  await writeFile(
    path.join(dir, pkg, 'catalog.json'),
    JSON.stringify({ schema: 'olm.package', name: pkg }) + '\n',
  );
}

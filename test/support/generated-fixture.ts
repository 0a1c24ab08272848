// The fixture of a describe block that syncs one generated catalog under several names: a temp
// directory with the catalog (fbcgen), its image in the local registry, a controller, and the
// ClusterCatalogs the tests name through `track`, deleted after the block.
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { installCrds, push } from './catalogs.js';
import type { RunningController } from './controller.js';
import { startController } from './controller.js';
import { generateCatalog } from './fbcgen.js';
import { kubectl } from './kubectl.js';
import { uniqueName } from './names.js';

export interface GeneratedFixture {
  /** The temp directory (the catalog is its `catalog` subdirectory). */
  tmp: string;
  dir: string;
  ref: string;
  controller: RunningController;
  /** A new catalog name, deleted after the block. */
  track(prefix: string): string;
}

/** Registers the block's before/after hooks; the fixture is ready in the tests. */
export function generatedFixture(prefix: string, seed: number, sizeMB: number): GeneratedFixture {
  const names: string[] = [];
  const f = {
    track: (p: string) => {
      const name = uniqueName(p);
      names.push(name);
      return name;
    },
  } as GeneratedFixture;
  before(async () => {
    await installCrds();
    f.tmp = await mkdtemp(path.join(os.tmpdir(), `catalog-${prefix}-`));
    f.dir = path.join(f.tmp, 'catalog');
    await generateCatalog(f.dir, { seed, sizeMB });
    f.ref = await push(f.dir, `${prefix}:${uniqueName('v')}`);
    f.controller = await startController();
  });
  after(async () => {
    await f.controller?.stop();
    for (const name of names) await kubectl(['delete', 'clustercatalog', name, '--wait=false']);
    if (f.tmp) await rm(f.tmp, { recursive: true, force: true });
  });
  return f;
}

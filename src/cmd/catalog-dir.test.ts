import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { catalogDirProblem } from './catalog-dir.js';

describe('cmd/catalog-dir: the <dir> of render and push', () => {
  it('names a path that is missing or not a directory; a directory is fine', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'catalog-dir-'));
    try {
      const file = path.join(dir, 'catalog.json');
      await writeFile(file, '{}');
      expect(await catalogDirProblem(dir)).to.equal(undefined);
      expect(await catalogDirProblem(file)).to.equal(`${file}: not a directory`);
      const missing = path.join(dir, 'nope');
      expect(await catalogDirProblem(missing)).to.equal(`${missing}: no such directory`);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

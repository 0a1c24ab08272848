import { expect } from 'chai';
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { mostFsRequestsInFlight } from '../../test/support/fs-requests.js';
import { removeTree } from './remove-tree.js';

describe('util/remove-tree: removeTree', () => {
  let root: string;
  beforeEach(() => {
    root = mkdtempSync(path.join(os.tmpdir(), 'remove-tree-'));
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('removes a tree of files, nested directories and symbolic links, not their targets', async () => {
    const outside = path.join(root, 'outside');
    writeFileSync(outside, 'kept');
    const tree = path.join(root, 'tree');
    let dir = tree;
    for (let depth = 0; depth < 20; depth++) {
      dir = path.join(dir, `d${depth}`);
      mkdirSync(dir, { recursive: true });
      for (let i = 0; i < 7; i++) writeFileSync(path.join(dir, `f${i}`), 'x');
    }
    symlinkSync(outside, path.join(dir, 'link'));
    symlinkSync(root, path.join(tree, 'dirlink'));
    await removeTree(tree, 3);
    expect(existsSync(tree)).to.equal(false);
    expect(existsSync(outside)).to.equal(true);
  });

  it('removes a single file, and a missing path is no error', async () => {
    const file = path.join(root, 'file');
    writeFileSync(file, 'x');
    await removeTree(file);
    expect(existsSync(file)).to.equal(false);
    await removeTree(path.join(root, 'missing', 'deeper'));
  });

  it('keeps one request in flight for a directory of thousands of files (fs.rm starts them all at once)', async () => {
    // 100,000 entries removed by fs.promises.rm left about 170 MB of native memory behind.
    const dir = path.join(root, 'configs');
    mkdirSync(dir);
    for (let i = 0; i < 1000; i++) writeFileSync(path.join(dir, `f${i}.json`), '');
    const most = await mostFsRequestsInFlight(() => removeTree(root));
    expect(existsSync(root)).to.equal(false);
    expect(most).to.be.at.most(2);
  });
});

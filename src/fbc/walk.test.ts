import { expect } from 'chai';
import { listCatalogFiles } from './walk.js';
import type { DirReader } from './walk.js';

/** An in-memory tree: paths ending in '/' are directories; '@' marks a symlink. */
function memReader(files: Record<string, string>): DirReader {
  return {
    async list(dir) {
      const prefix = dir === '' ? '' : `${dir}/`;
      const seen = new Map<string, 'dir' | 'file' | 'other'>();
      for (const p of Object.keys(files)) {
        if (!p.startsWith(prefix)) continue;
        const rest = p.slice(prefix.length);
        const slash = rest.indexOf('/');
        if (slash >= 0) seen.set(rest.slice(0, slash), 'dir');
        else seen.set(rest, rest.startsWith('@') ? 'other' : 'file');
      }
      return [...seen].map(([name, kind]) => ({ name, kind }));
    },
    async readText(file) {
      const t = files[file];
      if (t === undefined) throw new Error(`no ${file}`);
      return t;
    },
  };
}

describe('fbc/walk: which files are FBC, in which order', () => {
  it('walks depth-first in byte order of names, like fs.WalkDir', async () => {
    const files = await listCatalogFiles(
      memReader({
        'b.json': '',
        'a/z.json': '',
        'a.json': '',
        'A.json': '',
        'a-b/x.json': '',
        'é.json': '',
        '@link': '',
      }),
    );
    expect(files).to.deep.equal(['A.json', 'a/z.json', 'a-b/x.json', 'a.json', 'b.json', 'é.json']);
  });

  it('applies .indexignore patterns relative to their directory, at any depth', async () => {
    const files = await listCatalogFiles(
      memReader({
        '.indexignore': '# comment\n\n*.md\n',
        'README.md': '',
        'pkg/.indexignore': '*.txt\n!keep.txt\nscratch/\n',
        'pkg/catalog.json': '',
        'pkg/notes.txt': '',
        'pkg/keep.txt': '',
        'pkg/scratch/x.yaml': '',
        'pkg/deeper/README.md': '',
        'other/notes.txt': '',
      }),
    );
    expect(files).to.deep.equal(['other/notes.txt', 'pkg/catalog.json', 'pkg/keep.txt']);
  });

  it('a deeper .indexignore overrides its parent (last matching pattern wins)', async () => {
    const files = await listCatalogFiles(
      memReader({
        '.indexignore': '*.yaml\n',
        'a/.indexignore': '!*.yaml\n',
        'a/x.yaml': '',
        'b/x.yaml': '',
      }),
    );
    expect(files).to.deep.equal(['a/x.yaml']);
  });

  it('anchored patterns match from the .indexignore directory only', async () => {
    const files = await listCatalogFiles(
      memReader({ 'p/.indexignore': '/top.json\n', 'p/top.json': '', 'p/sub/top.json': '' }),
    );
    expect(files).to.deep.equal(['p/sub/top.json']);
  });
});

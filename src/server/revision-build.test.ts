import { expect } from 'chai';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { canonicalize, readCatalog } from '../fbc/index.js';
import type { Blob } from '../fbc/index.js';
import { writeRevisionFiles } from './revision-build.js';
import { ALL_FILE, INDEX_FILE, NAMES_FILE, OFFSETS_FILE } from './revision-format.js';
import type { RevisionIndexFile } from './revision-format.js';
import { blobOf, streamOf } from './test-catalogs.test.js';

/** The blobs as the parser reads them from one file holding them in this order. */
async function parsed(blobs: object[]): Promise<Blob[]> {
  const dir = await mkdtemp(path.join(tmpdir(), 'revision-build-fbc-'));
  try {
    await writeFile(path.join(dir, 'catalog.json'), blobs.map((b) => JSON.stringify(b)).join('\n'));
    const out: Blob[] = [];
    for await (const b of readCatalog(dir, { catalog: 'ops' })) out.push(b);
    return out;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

interface Written {
  index: RevisionIndexFile;
  files: Record<string, Buffer>;
}

async function written(blobs: Parameters<typeof writeRevisionFiles>[2]): Promise<Written> {
  const dir = await mkdtemp(path.join(tmpdir(), 'revision-build-'));
  try {
    await writeRevisionFiles(dir, undefined, blobs);
    const files: Record<string, Buffer> = {};
    for (const f of [ALL_FILE, OFFSETS_FILE, NAMES_FILE, INDEX_FILE])
      files[f] = await readFile(path.join(dir, f));
    return { index: JSON.parse(files[INDEX_FILE]!.toString('utf8')) as RevisionIndexFile, files };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

function permutations<T>(xs: T[]): T[][] {
  if (xs.length <= 1) return [xs];
  return xs.flatMap((x, i) =>
    permutations([...xs.slice(0, i), ...xs.slice(i + 1)]).map((rest) => [x, ...rest]),
  );
}

describe('server/revision-build', () => {
  const dups = [1, 2, 3].map((v) => ({ schema: 'custom.x', package: 'p3', name: 'dup', v }));
  const others = [
    { schema: 'olm.package', name: 'p3' },
    { schema: 'custom.x', package: 'p3', name: 'other' },
    // Without package and name: every one is told apart by its hash, none is plain.
    { schema: 'custom.y', note: 1 },
    { schema: 'custom.y', note: 2 },
  ];

  it('records the plain blob of a repeated identity only where blob order does not put it first, with all.jsonl the same in every walk order', async () => {
    let recorded = 0;
    let firstInBlobOrder = 0;
    let reference: Written | undefined;
    for (const walk of permutations(dups)) {
      const w = await written(streamOf(await parsed([...others, ...walk])));
      const { plainRepeats, ...rest } = w.index;
      if (reference === undefined) reference = w;
      // Blob order depends on the blobs alone: the same bytes, whatever the walk order.
      for (const f of [ALL_FILE, OFFSETS_FILE, NAMES_FILE])
        expect(w.files[f]!.equals(reference.files[f]!), f).to.equal(true);
      const { plainRepeats: _, ...referenceRest } = reference.index;
      expect(rest).to.deep.equal(referenceRest);

      const lines = w.files[ALL_FILE]!.toString('utf8').split('\n');
      const start = lines.findIndex((l) => l.includes('"name":"dup"'));
      // The parser keeps the plain identity for the first in walk order.
      const plainSeq = lines.indexOf(canonicalize(walk[0]));
      expect(plainSeq).to.be.within(start, start + 2);
      if (plainSeq === start) {
        firstInBlobOrder++;
        expect(w.index).to.not.have.property('plainRepeats');
      } else {
        recorded++;
        expect(plainRepeats).to.deep.equal([[start, start + 3, plainSeq]]);
      }
    }
    expect(firstInBlobOrder).to.equal(2);
    expect(recorded).to.equal(4);
  });

  it('records nothing for blobs without the parser identity', async () => {
    const w = await written(streamOf([...others, ...dups].map((b) => blobOf(b))));
    expect(w.index).to.not.have.property('plainRepeats');
  });
});

// The served objects are `catalogd render`'s objects (the CRD mode's): the same names, labels,
// annotations and spec under each content profile and --max-object-bytes, apart from the
// apiVersion and the fields the server sets.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { render } from '../cmd/render.js';
import { getText } from '../server/test-catalogs.test.js';
import {
  catalogBlobs,
  parseBlobs,
  SERVER_URL,
  servedFixture,
  viewCatalog,
} from './test-served.test.js';

interface Obj {
  apiVersion: string;
  metadata: Record<string, unknown> & { name: string };
}

async function rendered(
  blobs: object[],
  profile: 'full' | 'lean',
  maxObjectBytes: number,
): Promise<Obj[]> {
  const dir = await mkdtemp(path.join(tmpdir(), 'served-render-'));
  try {
    await writeFile(path.join(dir, 'catalog.json'), blobs.map((b) => JSON.stringify(b)).join('\n'));
    let out = '';
    await render(
      dir,
      {
        catalog: 'ops',
        output: 'json',
        serverUrl: SERVER_URL,
        maxObjectBytes,
        contentProfile: profile,
      },
      async (s) => {
        out += s;
      },
    );
    return (JSON.parse(out) as { items: Obj[] }).items;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Without what only the served view sets (owner, uid, RV, creation) and the group. */
function comparable(o: Obj): Obj {
  const {
    ownerReferences: _o,
    uid: _u,
    resourceVersion: _r,
    creationTimestamp: _c,
    ...metadata
  } = o.metadata;
  return { ...o, apiVersion: 'any', metadata };
}

describe('served objects equal catalogd render output', () => {
  const blobs = [
    ...catalogBlobs(1),
    { schema: 'olm.bundle', package: 'p3', name: 'big', blob: 'x'.repeat(2000) },
  ];
  for (const profile of ['full', 'lean'] as const)
    it(`under the ${profile} profile, with content omitted past --max-object-bytes`, async () => {
      const maxObjectBytes = 1500;
      const want = await rendered(blobs, profile, maxObjectBytes);
      const f = await servedFixture('ops', [await parseBlobs('ops', blobs)], { maxObjectBytes });
      try {
        const rev = await parseBlobs('ops', blobs);
        f.source.set([viewCatalog('ops', rev.key, profile)]);
        const r = await getText(f, '/apis/content.olm.operatorframework.io/v1/catalogmetadata');
        const got = (JSON.parse(r.body) as { items: Obj[] }).items;
        const byName = (list: Obj[]) =>
          Object.fromEntries(list.map((o) => [o.metadata.name, comparable(o)]));
        expect(byName(got)).to.deep.equal(byName(want));
        expect(JSON.stringify(want)).to.include('contentOmitted');
        expect(got.every((o) => o.apiVersion === 'content.olm.operatorframework.io/v1')).to.equal(
          true,
        );
      } finally {
        await f.close();
      }
    });
});

describe('served names equal catalogd render names for a custom schema repeated identity', () => {
  const PATH = '/apis/content.olm.operatorframework.io/v1/catalogmetadata';
  const repeated = [1, 2, 3].map((v) => ({ schema: 'custom.x', package: 'p3', name: 'dup', v }));
  // The parser keeps the plain identity for the first in walk order: v1 in one order, v3 in the
  // other, so in at least one of them that is not the first by hash (blob order).
  for (const [order, dups] of [
    ['as written', repeated],
    ['reversed', [...repeated].reverse()],
  ] as const)
    it(`with the repeated blobs in walk order ${order}: list, get by name and field selectors`, async () => {
      const blobs = [...catalogBlobs(1), ...dups];
      const want = await rendered(blobs, 'full', 1 << 20);
      const rev = await parseBlobs('ops', blobs);
      const f = await servedFixture('ops', [rev]);
      try {
        f.source.set([viewCatalog('ops', rev.key)]);
        const byName = (list: Obj[]) =>
          Object.fromEntries(list.map((o) => [o.metadata.name, comparable(o)]));
        const list = async (query: string) =>
          (JSON.parse((await getText(f, `${PATH}?${query}`)).body) as { items: Obj[] }).items;
        expect(byName(await list(''))).to.deep.equal(byName(want));
        const dupNames = want
          .filter((o) => (o as Obj & { spec: { name?: string } }).spec.name === 'dup')
          .map((o) => o.metadata.name);
        expect(dupNames).to.have.length(3);
        expect(
          (await list('fieldSelector=spec.name%3Ddup')).map((o) => o.metadata.name).sort(),
        ).to.deep.equal([...dupNames].sort());
        for (const o of want) {
          const r = await getText(f, `${PATH}/${o.metadata.name}`);
          expect(r.status, o.metadata.name).to.equal(200);
          expect(comparable(JSON.parse(r.body) as Obj)).to.deep.equal(comparable(o));
        }
        for (const name of dupNames)
          expect(
            (await list(`fieldSelector=metadata.name%3D${name}`)).map((o) => o.metadata.name),
          ).to.deep.equal([name]);
      } finally {
        await f.close();
      }
    });
});

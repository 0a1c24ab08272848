// The sizing table of docs/deploy.md ("Control-plane cost"), from the coefficients in
// src/cmd/render-cost-coefficients.json: run it after `BENCH_UPDATE_COST_MODEL=1` changed them
// and paste the output there.   npx tsx bench/cost-sizing.ts
import { predictCost } from '../src/cmd/render-cost-model.js';

/**
 * Catalog shapes, measured by `catalogd render --cost`'s scan (measureCatalog): objects per
 * content byte, and each profile's object bytes and JSON values of the content per content byte.
 * real: /tmp/real/v4.20 (community-operators-prod for OpenShift 4.20); generated:
 * test/support/fbcgen.ts, seed 1, 5 MB.
 */
const SHAPES = {
  real: {
    objectsPerByte: 925 / 13132515,
    full: { bytes: 13893681 / 13132515, values: 241120 / 13132515 },
    lean: { bytes: 2650584 / 13132515, values: 66798 / 13132515 },
  },
  generated: {
    objectsPerByte: 1106 / 5198435,
    full: { bytes: 6132418 / 5198435, values: 89372 / 5198435 },
    lean: { bytes: 2245633 / 5198435, values: 37832 / 5198435 },
  },
};
const MiB = 1048576;
const n = (x: number) => Math.round(x).toLocaleString('en');

const lines = [
  '| shape | catalog MB | objects | full: etcd MB | full: apiserver MB | lean: etcd MB | lean: apiserver MB |',
  '| --- | --- | --- | --- | --- | --- | --- |',
];
for (const [name, shape] of Object.entries(SHAPES)) {
  for (const mb of [10, 50, 100, 250]) {
    const objects = Math.round(shape.objectsPerByte * mb * MiB);
    const cells: string[] = [name, String(mb), n(objects)];
    for (const p of ['full', 'lean'] as const) {
      const c = predictCost(p, {
        objects,
        objectBytes: shape[p].bytes * mb * MiB,
        contentValues: shape[p].values * mb * MiB,
      });
      cells.push(c ? n(c.etcdBytes / MiB) : 'n/a', c ? n(c.apiserverHeapBytes / MiB) : 'n/a');
    }
    lines.push(`| ${cells.join(' | ')} |`);
  }
}
process.stdout.write(lines.join('\n') + '\n');

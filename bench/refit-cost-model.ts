// Fits src/cmd/render-cost-coefficients.json (what `catalogd render --cost` predicts from) from
// a control-plane run's samples, without running the bench again, and prints each catalog's
// predicted ÷ measured heap and etcd bytes.
//   npx tsx bench/refit-cost-model.ts [samples.json]   (default: bench/data/stop31-cost-samples.json)
//   npx tsx bench/refit-cost-model.ts --check samples.json   (the committed coefficients against
//   those samples, out of sample; writes nothing)
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { ContentProfile } from '../src/api/v1/index.js';
import type { CostSample } from '../src/cmd/render-cost-model.js';
import { COST_MODEL, fitCostModel, predictCost } from '../src/cmd/render-cost-model.js';
import { writeCostModel } from './lib/cost-model-file.js';

interface Samples {
  measuredBy: string;
  samples: Partial<Record<ContentProfile, Array<CostSample & { catalog: string }>>>;
}

const root = path.resolve(import.meta.dirname, '..');
const check = process.argv[2] === '--check';
const file = process.argv[check ? 3 : 2] ?? path.join(root, 'bench/data/stop31-cost-samples.json');
const data = JSON.parse(await readFile(file, 'utf8')) as Samples;
const model = check ? COST_MODEL : fitCostModel(data.measuredBy, data.samples);
if (!check) await writeCostModel(root, model);
for (const [profile, samples] of Object.entries(data.samples)) {
  for (const s of samples) {
    const p = predictCost(profile as ContentProfile, s, model)!;
    const r = (x: number) => x.toFixed(3);
    console.log(
      `${profile} ${s.catalog}: heap ${r(p.apiserverHeapBytes / s.apiserverHeapBytes)}, etcd ${r(p.etcdBytes / s.etcdBytes)} (predicted ÷ measured)`,
    );
  }
}
console.log(JSON.stringify(model.profiles));

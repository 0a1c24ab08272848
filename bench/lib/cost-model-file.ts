// The data file the bench writes and src reads: src/cmd/render-cost-coefficients.json.
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { format, resolveConfig } from 'prettier';
import type { CostModel } from '../../src/cmd/render-cost-model.js';

export async function writeCostModel(root: string, model: CostModel): Promise<void> {
  const file = path.join(root, 'src', 'cmd', 'render-cost-coefficients.json');
  // Formatted as `make lint` checks it.
  const options = (await resolveConfig(file)) ?? {};
  await writeFile(file, await format(JSON.stringify(model), { ...options, filepath: file }));
}

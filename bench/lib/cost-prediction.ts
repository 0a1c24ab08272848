// `renderCostPrediction` in the control-plane section: how close `catalogd render --cost`'s
// prediction comes to what the bench measured, per catalog and profile; the files the run's
// fitted coefficients and samples go to; the targets the section checks.
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { ContentProfile } from '../../src/api/v1/index.js';
import type { CostModel, CostSample } from '../../src/cmd/render-cost-model.js';
import { predictCost } from '../../src/cmd/render-cost-model.js';
import { writeCostModel } from './cost-model-file.js';

export interface CatalogUnderTest {
  /** `generated-50mb`, `real-v4.20`. */
  id: string;
  dir: string;
  ref: string;
  objects: number;
  contentBytes: number;
  /** Each profile's objects' bytes as the controller sends them (render --cost's scan). */
  objectBytes: Record<ContentProfile, number>;
  /** Each profile's JSON values of the objects' content (the cost model's third term). */
  contentValues: Record<ContentProfile, number>;
}

export interface ProfileMeasurement {
  objects: number;
  /** kube-apiserver's VmRSS before the sync and after it settled (no forced GC). */
  apiserverRssBytes: { before: number; after: number };
  apiserverHeapBytesAdded: number;
  apiserverHeapBytesPerContentByte: number;
  etcdBytesAdded: number;
  etcdBytesPerContentByte: number;
  /** The live-heap samples (after a forced GC each), before and after. */
  heapSamples: { before: number[]; after: number[] };
  syncSeconds?: number;
  /** The ClusterCatalog's status.storedBytes after the sync (the objects as written). */
  statusStoredBytes?: number;
}

const r3 = (x: number) => Number(x.toFixed(3));

/** render --cost's prediction (the committed coefficients) against each measured catalog. */
export function renderCostPrediction(
  catalogs: readonly CatalogUnderTest[],
  byCatalog: Record<string, Record<string, unknown>>,
  profiles: readonly ContentProfile[],
) {
  return catalogs.map((cat) => {
    const measured = byCatalog[cat.id]!;
    return {
      catalog: cat.id,
      objects: { predicted: cat.objects, measured: (measured.full as ProfileMeasurement).objects },
      ...Object.fromEntries(
        profiles.map((p) => {
          const m = measured[p] as ProfileMeasurement;
          const predicted = predictCost(p, {
            objects: cat.objects,
            objectBytes: cat.objectBytes[p],
            contentValues: cat.contentValues[p],
          });
          const pe = predicted?.etcdBytes;
          const ph = predicted?.apiserverHeapBytes;
          return [
            p,
            {
              // render --cost's object bytes against what the controller wrote.
              objectBytes: {
                predicted: cat.objectBytes[p],
                measured: m.statusStoredBytes ?? null,
              },
              etcdBytes: { predicted: pe ?? null, measured: m.etcdBytesAdded },
              etcdRatio: pe === undefined ? null : r3(pe / m.etcdBytesAdded),
              apiserverHeapBytes: { predicted: ph ?? null, measured: m.apiserverHeapBytesAdded },
              apiserverHeapRatio: ph === undefined ? null : r3(ph / m.apiserverHeapBytesAdded),
            },
          ];
        }),
      ),
    };
  });
}

/**
 * bench/results/cost-model.json (the coefficients this run fitted) and cost-samples.json (its
 * samples, in bench/refit-cost-model.ts's form: copied to bench/data to refit from later);
 * with BENCH_UPDATE_COST_MODEL=1 the coefficients also go to
 * src/cmd/render-cost-coefficients.json.
 */
export async function writeCostFiles(
  root: string,
  fitted: CostModel,
  samples: Partial<Record<ContentProfile, Array<CostSample & { catalog: string }>>>,
): Promise<void> {
  if (process.env.BENCH_UPDATE_COST_MODEL === '1') await writeCostModel(root, fitted);
  const results = path.join(root, 'bench', 'results');
  // Before run.ts writes its results there: a fresh checkout has no bench/results yet.
  await mkdir(results, { recursive: true });
  await writeFile(path.join(results, 'cost-model.json'), JSON.stringify(fitted, null, 2) + '\n');
  await writeFile(
    path.join(results, 'cost-samples.json'),
    JSON.stringify({ measuredBy: fitted.measuredBy, samples }, null, 2) + '\n',
  );
}

/** The issue 25 targets this section checks (null: not measured in this run). */
export function controlPlaneTargets(cp: unknown): Record<string, boolean | null> {
  const c = cp as {
    leanProfile?: { heapRatioToFull?: number; etcdRatioToFull?: number };
    otherClientP99Seconds?: { withFlowSchema?: { ratio: number } };
    renderCostPrediction?: Array<{
      objects: { predicted: number; measured: number };
      full?: { etcdRatio: number | null; apiserverHeapRatio: number | null };
      lean?: { etcdRatio: number | null; apiserverHeapRatio: number | null };
    }>;
  };
  const lean = c.leanProfile;
  const pred = c.renderCostPrediction ?? [];
  return {
    leanAtMost0_25xFull:
      lean?.heapRatioToFull === undefined || lean.etcdRatioToFull === undefined
        ? null
        : lean.heapRatioToFull <= 0.25 && lean.etcdRatioToFull <= 0.25,
    otherClientP99AtMost3xIdleWithFlowSchema:
      c.otherClientP99Seconds?.withFlowSchema === undefined
        ? null
        : c.otherClientP99Seconds.withFlowSchema.ratio <= 3,
    renderCostObjectsExact: pred.every((p) => p.objects.predicted === p.objects.measured),
    // Both profiles: a lean prediction off by more than that is as misleading as a full one.
    renderCostEtcdWithin25Percent: pred.every((p) => within25(p, 'etcdRatio')),
    renderCostHeapWithin25Percent: pred.every((p) => within25(p, 'apiserverHeapRatio')),
  };
}

/** Whether a catalog's predicted ÷ measured `ratio` is within 25 % in every profile measured. */
function within25(
  p: Partial<Record<ContentProfile, Record<'etcdRatio' | 'apiserverHeapRatio', number | null>>>,
  ratio: 'etcdRatio' | 'apiserverHeapRatio',
): boolean {
  const ok = (r: number | null | undefined) => r != null && Math.abs(r - 1) <= 0.25;
  return ok(p.full?.[ratio]) && (p.lean === undefined || ok(p.lean[ratio]));
}

// `catalogd render DIR --cost`: what syncing the catalog would cost the control plane, before
// installing it. The objects are counted and measured by the same scan as `render` (so the count
// is exact and an oversized blob counts as the controller writes it); etcd bytes and apiserver
// heap are predicted from the coefficients `make bench` measured (src/sync/cost-model.ts).
import type { ContentProfile } from '../api/v1/index.js';
import { CONTENT_PROFILES } from '../api/v1/index.js';
import type { CostModel, ProfileCost } from '../sync/cost-model.js';
import { COST_MODEL, predictCost } from '../sync/cost-model.js';
import type { SyncTarget } from '../sync/index.js';
import { scanCatalog } from '../sync/index.js';

export interface ProfileCostReport extends Partial<ProfileCost> {
  objects: number;
  /** The objects' JSON as the controller sends it; undefined: this build cannot project it. */
  storedBytes?: number;
}

export interface CatalogCostReport {
  catalog: string;
  objects: number;
  /** FBC content bytes: the canonical JSON of every blob. */
  contentBytes: number;
  /** Objects stored with contentOmitted (larger than --max-object-bytes). */
  contentOmitted: number;
  profiles: Record<ContentProfile, ProfileCostReport>;
  /** The run the coefficients come from (src/sync/cost-model.ts). */
  coefficientsFrom: string;
}

/** Scans the catalog once (as render and the controller do) and predicts its cost. */
export async function catalogCost(
  target: SyncTarget,
  model: CostModel = COST_MODEL,
): Promise<CatalogCostReport> {
  let storedBytes = 0;
  const scan = await scanCatalog(target, undefined, (obj) => {
    storedBytes += Buffer.byteLength(JSON.stringify(obj));
  });
  const size = { objects: scan.blobs, contentBytes: scan.bytes };
  const predicted = predictCost(size, model);
  const profiles = {} as Record<ContentProfile, ProfileCostReport>;
  for (const p of CONTENT_PROFILES) {
    profiles[p] = {
      objects: scan.blobs,
      ...(p === 'full' && { storedBytes }),
      ...predicted[p],
    };
  }
  return {
    catalog: target.catalog.name,
    objects: scan.blobs,
    contentBytes: scan.bytes,
    contentOmitted: scan.omitted,
    profiles,
    coefficientsFrom: model.measuredBy,
  };
}

/** Bytes in binary units with one decimal: 12.3 kB, 45.6 MB. */
function mb(b: number | undefined): string {
  if (b === undefined) return 'n/a';
  if (b < 1024) return `${b} B`;
  if (b < 1048576) return `${(b / 1024).toFixed(1)} kB`;
  if (b < 1073741824) return `${(b / 1048576).toFixed(1)} MB`;
  return `${(b / 1073741824).toFixed(2)} GB`;
}

function table(rows: string[][]): string {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return rows
    .map((r) =>
      r
        .map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!)))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

export function formatCostText(r: CatalogCostReport): string {
  const rows = [['profile', 'objects', 'object bytes', 'etcd', 'apiserver heap']];
  for (const p of CONTENT_PROFILES) {
    const c = r.profiles[p];
    rows.push([p, String(c.objects), mb(c.storedBytes), mb(c.etcdBytes), mb(c.apiserverHeapBytes)]);
  }
  return (
    `catalog ${r.catalog}: ${r.objects} objects, ${mb(r.contentBytes)} of FBC content` +
    (r.contentOmitted > 0 ? `, ${r.contentOmitted} with content omitted (too large)` : '') +
    '\n\n' +
    table(rows) +
    '\n\n' +
    'etcd and apiserver heap are predictions (n/a: not measured for that profile yet), from\n' +
    `coefficients measured by \`make bench\`: ${r.coefficientsFrom}.\n` +
    'object bytes: the objects as the controller sends them (n/a: not projected by this build).\n'
  );
}

export function formatCostJson(r: CatalogCostReport): string {
  return JSON.stringify(r, null, 2) + '\n';
}

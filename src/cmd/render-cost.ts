// `catalogd render DIR --cost`: what syncing the catalog would cost the control plane, before
// installing it. The objects are counted and measured by the same scan as `render` (so the count
// is exact and an oversized blob counts as the controller writes it); etcd bytes and apiserver
// heap are predicted from the coefficients `make bench` measured (src/sync/cost-coefficients.json).
import type { ContentProfile } from '../api/v1/index.js';
import { CONTENT_PROFILES } from '../api/v1/index.js';
import type { CostModel, ProfileCost } from '../sync/cost-model.js';
import { COST_MODEL, predictCost } from '../sync/cost-model.js';
import { scanCatalog } from '../sync/index.js';
import type { RenderOptions } from './render-target.js';
import { renderTarget } from './render-target.js';

export interface ProfileCostReport extends Partial<ProfileCost> {
  objects: number;
  /** The objects' JSON bytes as the controller sends them (with the owner reference). */
  objectBytes: number;
}

export interface CatalogCostReport {
  catalog: string;
  objects: number;
  /** FBC content bytes: the canonical JSON of every blob. */
  contentBytes: number;
  /** Objects stored with contentOmitted (larger than --max-object-bytes). */
  contentOmitted: number;
  profiles: Record<ContentProfile, ProfileCostReport>;
  /** The run the coefficients come from (src/sync/cost-coefficients.json). */
  coefficientsFrom: string;
}

/**
 * Scans the catalog once per profile, as render and the controller do (opts.contentProfile is
 * not used: every profile is reported), and predicts each profile's cost from its objects.
 */
export async function catalogCost(
  dir: string,
  opts: RenderOptions,
  model: CostModel = COST_MODEL,
): Promise<CatalogCostReport> {
  const profiles = {} as Record<ContentProfile, ProfileCostReport>;
  let full: { blobs: number; bytes: number; omitted: number } | undefined;
  for (const contentProfile of CONTENT_PROFILES) {
    // storedBytes: the objects' JSON as the controller writes them, measured by the scan
    // without serializing the content again.
    const scan = await scanCatalog(renderTarget(dir, { ...opts, contentProfile }));
    if (contentProfile === 'full') full = scan;
    const size = { objects: scan.blobs, objectBytes: scan.storedBytes };
    profiles[contentProfile] = { ...size, ...predictCost(contentProfile, size, model) };
  }
  return {
    catalog: opts.catalog,
    objects: full!.blobs,
    contentBytes: full!.bytes,
    contentOmitted: full!.omitted,
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
    rows.push([p, String(c.objects), mb(c.objectBytes), mb(c.etcdBytes), mb(c.apiserverHeapBytes)]);
  }
  return (
    `catalog ${r.catalog}: ${r.objects} objects, ${mb(r.contentBytes)} of FBC content` +
    (r.contentOmitted > 0
      ? `, ${r.contentOmitted} with content omitted in the full profile (too large)`
      : '') +
    '\n\n' +
    table(rows) +
    '\n\n' +
    'etcd and apiserver heap are predictions (n/a: not measured for that profile yet), from\n' +
    `coefficients measured by \`make bench\`: ${r.coefficientsFrom}.\n` +
    'object bytes: the objects as the controller sends them.\n'
  );
}

export function formatCostJson(r: CatalogCostReport): string {
  return JSON.stringify(r, null, 2) + '\n';
}

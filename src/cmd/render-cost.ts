// `catalogd render DIR --cost`: what syncing the catalog would cost the control plane, before
// installing it. The objects are counted and measured by the same scan as `render` (so the count
// is exact and an oversized blob counts as the controller writes it); etcd bytes and apiserver
// heap are predicted from the coefficients `make bench` measured (render-cost-model.ts, from
// render-cost-coefficients.json).
import type { ContentProfile } from '../api/v1/index.js';
import { CONTENT_PROFILES } from '../api/v1/index.js';
import type { CatalogSize, CostModel, ProfileCost } from './render-cost-model.js';
import { COST_MODEL, countContentValues, predictCost } from './render-cost-model.js';
import type { ScanResult } from '../sync/index.js';
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
  /** The run the coefficients come from (src/cmd/render-cost-coefficients.json). */
  coefficientsFrom: string;
}

/** A catalog's size in every profile (the model's terms), and the full profile's scan. */
export interface CatalogSizes {
  profiles: Record<ContentProfile, CatalogSize>;
  full: ScanResult;
}

/**
 * Scans the catalog once per profile, as render and the controller do (opts.contentProfile is
 * not used: every profile is measured): its objects, their bytes and their content's JSON values.
 */
export async function measureCatalog(dir: string, opts: RenderOptions): Promise<CatalogSizes> {
  const profiles = {} as Record<ContentProfile, CatalogSize>;
  let full: ScanResult | undefined;
  for (const contentProfile of CONTENT_PROFILES) {
    let contentValues = 0;
    // storedBytes: the objects' JSON as the controller writes them, measured by the scan
    // without serializing the content again.
    const scan = await scanCatalog(
      renderTarget(dir, { ...opts, contentProfile }),
      undefined,
      (o) => {
        contentValues += countContentValues(o.spec.content);
      },
    );
    if (contentProfile === 'full') full = scan;
    profiles[contentProfile] = {
      objects: scan.blobs,
      objectBytes: scan.storedBytes,
      contentValues,
    };
  }
  return { profiles, full: full! };
}

/** Every profile's objects and their predicted cost (the model's coefficients). */
export async function catalogCost(
  dir: string,
  opts: RenderOptions,
  model: CostModel = COST_MODEL,
): Promise<CatalogCostReport> {
  const { profiles: sizes, full } = await measureCatalog(dir, opts);
  const profiles = {} as Record<ContentProfile, ProfileCostReport>;
  for (const p of CONTENT_PROFILES) {
    const { objects, objectBytes } = sizes[p];
    profiles[p] = { objects, objectBytes, ...predictCost(p, sizes[p], model) };
  }
  return {
    catalog: opts.catalog,
    objects: full.blobs,
    contentBytes: full.bytes,
    contentOmitted: full.omitted,
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

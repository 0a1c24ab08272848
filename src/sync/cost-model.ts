// What a catalog costs the control plane, predicted from coefficients `make bench` measured
// (bench/control-plane.ts fits them with fitCostModel; `BENCH_UPDATE_COST_MODEL=1` writes them
// to cost-coefficients.json beside this file). Each quantity is linear in the catalog's object
// count and the bytes of its objects as the controller sends them (per profile: the lean
// profile's objects are smaller): the apiserver adds a shell of about the same size to every
// object whatever its content (uid, resourceVersion, managedFields), etcd stores the result
// once, and the apiserver's watch cache holds one decoded copy of each, with a floor per object
// (its metadata, managedFields and the cache's own structures) whatever the profile.
// Used by `catalogd render --cost` (src/cmd/render-cost.ts).
import type { ContentProfile } from '../api/v1/index.js';
import coefficients from './cost-coefficients.json' with { type: 'json' };

/** Bytes per object plus bytes per byte of the objects as sent, for one content profile. */
export interface ProfileCoefficients {
  etcdBytesPerObject: number;
  etcdBytesPerObjectByte: number;
  apiserverHeapBytesPerObject: number;
  apiserverHeapBytesPerObjectByte: number;
}

export interface CostModel {
  /** Which bench run measured the numbers: date, catalogs, Kubernetes and etcd versions. */
  measuredBy: string;
  /** Undefined: that profile was not measured yet. */
  profiles: Partial<Record<ContentProfile, ProfileCoefficients>>;
}

/** A catalog's objects in one profile: how many, and their JSON bytes as the controller sends them. */
export interface CatalogSize {
  objects: number;
  objectBytes: number;
}

export interface ProfileCost {
  etcdBytes: number;
  apiserverHeapBytes: number;
}

/** The coefficients `make bench` measured (cost-coefficients.json, which the bench writes). */
export const COST_MODEL: CostModel = costModel(coefficients);

/** The data file's model, checked: every coefficient of a profile a finite number. */
export function costModel(json: unknown): CostModel {
  const m = json as CostModel;
  const keys: Array<keyof ProfileCoefficients> = [
    'etcdBytesPerObject',
    'etcdBytesPerObjectByte',
    'apiserverHeapBytesPerObject',
    'apiserverHeapBytesPerObjectByte',
  ];
  const ok =
    typeof m?.measuredBy === 'string' &&
    typeof m.profiles === 'object' &&
    Object.values(m.profiles).every((c) => keys.every((k) => Number.isFinite(c?.[k])));
  if (!ok) throw new Error('src/sync/cost-coefficients.json: not a cost model');
  return m;
}

/** The predicted cost of a catalog's objects in `profile`; undefined: not measured yet. */
export function predictCost(
  profile: ContentProfile,
  size: CatalogSize,
  model: CostModel = COST_MODEL,
): ProfileCost | undefined {
  // No objects cost nothing, measured or not (the none profile's catalogs, an empty catalog).
  if (size.objects === 0) return { etcdBytes: 0, apiserverHeapBytes: 0 };
  const c = model.profiles[profile];
  if (!c) return undefined;
  return {
    etcdBytes: Math.round(
      c.etcdBytesPerObject * size.objects + c.etcdBytesPerObjectByte * size.objectBytes,
    ),
    apiserverHeapBytes: Math.round(
      c.apiserverHeapBytesPerObject * size.objects +
        c.apiserverHeapBytesPerObjectByte * size.objectBytes,
    ),
  };
}

/** One measured catalog: its size and what it added to etcd and the apiserver's heap. */
export interface CostSample extends CatalogSize {
  etcdBytes: number;
  apiserverHeapBytes: number;
}

/**
 * Least-squares fit of `y = a·objects + b·objectBytes` through the origin. With fewer than two
 * catalogs of different bytes per object, or when the fit would make a coefficient negative
 * (noise between two close catalogs), all of y is put on the object bytes (a = 0).
 */
export function fitLinear(
  samples: readonly CostSample[],
  y: (s: CostSample) => number,
): { perObject: number; perObjectByte: number } {
  let soo = 0;
  let sob = 0;
  let sbb = 0;
  let soy = 0;
  let sby = 0;
  for (const s of samples) {
    soo += s.objects * s.objects;
    sob += s.objects * s.objectBytes;
    sbb += s.objectBytes * s.objectBytes;
    soy += s.objects * y(s);
    sby += s.objectBytes * y(s);
  }
  const det = soo * sbb - sob * sob;
  // det relative to its terms: near 0 when every catalog has the same bytes per object.
  if (samples.length >= 2 && det > 1e-6 * soo * sbb) {
    const perObject = (sbb * soy - sob * sby) / det;
    const perObjectByte = (soo * sby - sob * soy) / det;
    if (perObject >= 0 && perObjectByte >= 0) return { perObject, perObjectByte };
  }
  return { perObject: 0, perObjectByte: sbb > 0 ? sby / sbb : 0 };
}

const round = (x: number, d: number) => Number(x.toFixed(d));

/**
 * The apiserver heap's coefficients over every measured profile at once: one per-object floor
 * (the apiserver holds the same metadata, managedFields and cache entry for an object of either
 * profile) and a per-byte term per profile, by least squares on the relative error (the
 * prediction is judged by its ratio to the measured heap, so a small catalog weighs as much as
 * a large one). Fitted per profile alone, the floor is lost in the lean profile's catalogs,
 * whose bytes per object hardly differ (it came out 0 B, or negative). With fewer catalogs than
 * unknowns, or a negative coefficient, the floor is 0 and each profile's bytes carry its heap.
 */
export function fitHeap(samples: Partial<Record<ContentProfile, readonly CostSample[]>>): {
  perObject: number;
  perObjectByte: Partial<Record<ContentProfile, number>>;
} {
  const profiles = (Object.keys(samples) as ContentProfile[]).filter(
    (p) => (samples[p] ?? []).length > 0,
  );
  const rows = profiles.flatMap((p, i) =>
    (samples[p] ?? []).map((s) => {
      const x = [s.objects, ...profiles.map((_, j) => (j === i ? s.objectBytes : 0))];
      const w = 1 / s.apiserverHeapBytes;
      return { x: x.map((v) => v * w), y: 1 };
    }),
  );
  const solved = rows.length > profiles.length ? leastSquares(rows) : undefined;
  if (solved && solved.every((v) => v >= 0)) {
    const [perObject, ...perByte] = solved as [number, ...number[]];
    return {
      perObject,
      perObjectByte: Object.fromEntries(profiles.map((p, i) => [p, perByte[i]])),
    };
  }
  const perObjectByte = Object.fromEntries(
    profiles.map((p) => [
      p,
      fitLinear(samples[p] ?? [], (s) => s.apiserverHeapBytes).perObjectByte,
    ]),
  );
  return { perObject: 0, perObjectByte };
}

/** Least squares by the normal equations (Gauss-Jordan); undefined when they are singular. */
function leastSquares(rows: ReadonlyArray<{ x: number[]; y: number }>): number[] | undefined {
  const n = rows[0]?.x.length ?? 0;
  const m = Array.from({ length: n }, (_, i) => [
    ...Array.from({ length: n }, (_, j) => rows.reduce((a, r) => a + r.x[i]! * r.x[j]!, 0)),
    rows.reduce((a, r) => a + r.x[i]! * r.y, 0),
  ]);
  for (let i = 0; i < n; i++) {
    const pivot = m.slice(i).reduce((best, r) => (Math.abs(r[i]!) > Math.abs(best[i]!) ? r : best));
    m[m.indexOf(pivot)] = m[i]!;
    m[i] = pivot;
    if (Math.abs(pivot[i]!) < 1e-300) return undefined;
    for (const r of m) {
      if (r === pivot) continue;
      const f = r[i]! / pivot[i]!;
      for (let j = i; j <= n; j++) r[j]! -= f * pivot[j]!;
    }
  }
  return m.map((r, i) => r[n]! / r[i]!);
}

/** The coefficients of every measured profile: etcd per profile (fitLinear), the heap jointly. */
export function fitCostModel(
  measuredBy: string,
  samples: Partial<Record<ContentProfile, readonly CostSample[]>>,
): CostModel {
  const heap = fitHeap(samples);
  const profiles: CostModel['profiles'] = {};
  for (const p of Object.keys(heap.perObjectByte) as ContentProfile[]) {
    const etcd = fitLinear(samples[p] ?? [], (s) => s.etcdBytes);
    profiles[p] = {
      etcdBytesPerObject: round(etcd.perObject, 0),
      etcdBytesPerObjectByte: round(etcd.perObjectByte, 4),
      apiserverHeapBytesPerObject: round(heap.perObject, 0),
      apiserverHeapBytesPerObjectByte: round(heap.perObjectByte[p]!, 4),
    };
  }
  return { measuredBy, profiles };
}

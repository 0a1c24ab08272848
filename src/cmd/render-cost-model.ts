// What a catalog costs the control plane, predicted from coefficients `make bench` measured
// (bench/control-plane.ts fits them with fitCostModel; `BENCH_UPDATE_COST_MODEL=1` writes them
// to render-cost-coefficients.json beside this file). Each quantity is linear in the catalog's
// object count and the bytes of its objects as the controller sends them (per profile: the lean
// profile's objects are smaller): the apiserver adds a shell of about the same size to every
// object whatever its content (uid, resourceVersion, managedFields), etcd stores the result
// once, and the apiserver's watch cache holds one decoded copy of each, with a floor per object
// (its metadata, managedFields and the cache's own structures) whatever the profile, and a cost
// per JSON value of the content (each decoded value is a Go map entry or slice element and an
// interface, whatever its length): many small values cost more heap per byte than one long
// base64 string, which bytes alone cannot tell apart.
// Used by `catalogd render --cost` (src/cmd/render-cost.ts).
import type { ContentProfile } from '../api/v1/index.js';
import coefficients from './render-cost-coefficients.json' with { type: 'json' };

/**
 * Bytes per object plus bytes per byte of the objects as sent (and, for the heap, per JSON value
 * of their content), for one content profile.
 */
export interface ProfileCoefficients {
  etcdBytesPerObject: number;
  etcdBytesPerObjectByte: number;
  apiserverHeapBytesPerObject: number;
  apiserverHeapBytesPerObjectByte: number;
  apiserverHeapBytesPerContentValue: number;
}

export interface CostModel {
  /** Which bench run measured the numbers: date, catalogs, Kubernetes and etcd versions. */
  measuredBy: string;
  /** Undefined: that profile was not measured yet. */
  profiles: Partial<Record<ContentProfile, ProfileCoefficients>>;
}

/**
 * A catalog's objects in one profile: how many, their JSON bytes as the controller sends them,
 * and the JSON values of their content (countContentValues).
 */
export interface CatalogSize {
  objects: number;
  objectBytes: number;
  contentValues: number;
}

export interface ProfileCost {
  etcdBytes: number;
  apiserverHeapBytes: number;
}

/** The coefficients `make bench` measured (render-cost-coefficients.json: the bench writes it). */
export const COST_MODEL: CostModel = costModel(coefficients);

/** The data file's model, checked: every coefficient of a profile a finite number. */
export function costModel(json: unknown): CostModel {
  const m = json as CostModel;
  const keys: Array<keyof ProfileCoefficients> = [
    'etcdBytesPerObject',
    'etcdBytesPerObjectByte',
    'apiserverHeapBytesPerObject',
    'apiserverHeapBytesPerObjectByte',
    'apiserverHeapBytesPerContentValue',
  ];
  const ok =
    typeof m?.measuredBy === 'string' &&
    typeof m.profiles === 'object' &&
    Object.values(m.profiles).every((c) => keys.every((k) => Number.isFinite(c?.[k])));
  if (!ok) throw new Error('src/cmd/render-cost-coefficients.json: not a cost model');
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
        c.apiserverHeapBytesPerObjectByte * size.objectBytes +
        c.apiserverHeapBytesPerContentValue * size.contentValues,
    ),
  };
}

/**
 * The JSON values of an object's content, each object, array, string, number, boolean and null
 * once (0 when the content is omitted): the model's third term. A walk over what the scan has
 * already parsed, without recursion (the parser bounds the depth, the walk need not rely on it).
 */
export function countContentValues(content: unknown): number {
  if (content === undefined) return 0;
  let n = 0;
  const stack: unknown[] = [content];
  while (stack.length > 0) {
    const v = stack.pop();
    n++;
    if (v === null || typeof v !== 'object') continue;
    // One at a time: a spread of a long array would overflow the call's arguments.
    for (const x of Array.isArray(v) ? (v as unknown[]) : Object.values(v)) stack.push(x);
  }
  return n;
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

type HeapTerm = 'objects' | 'objectBytes' | 'contentValues';
/** The terms fitHeap tries, the first whose coefficients come out non-negative wins. */
const HEAP_FITS: HeapTerm[][] = [
  ['objects', 'objectBytes', 'contentValues'],
  ['objects', 'objectBytes'],
  ['objectBytes'],
];

/**
 * The apiserver heap's coefficients, one set for every measured profile at once: the apiserver
 * decodes and holds a lean object as it does a full one, so an object, a byte and a JSON value
 * cost the same in either (fitted per profile, the lean catalogs' nearly equal bytes per object
 * hid the floor: it came out 0 B, or negative). Least squares on the relative error (the
 * prediction is judged by its ratio to the measured heap, so a small catalog weighs as much as a
 * large one). With fewer catalogs than terms, or a negative coefficient (noise between close
 * catalogs), fewer terms are fitted (HEAP_FITS) and the others are 0.
 */
export function fitHeap(
  samples: Partial<Record<ContentProfile, readonly CostSample[]>>,
): Record<HeapTerm, number> {
  const all = Object.values(samples).flatMap((s) => s ?? []);
  const fitted = { objects: 0, objectBytes: 0, contentValues: 0 };
  for (const terms of HEAP_FITS) {
    if (all.length < terms.length) continue;
    const rows = all.map((s) => ({ x: terms.map((t) => s[t] / s.apiserverHeapBytes), y: 1 }));
    const solved = leastSquares(rows);
    if (solved?.every((v) => v >= 0)) {
      terms.forEach((t, i) => (fitted[t] = solved[i]!));
      return fitted;
    }
  }
  return fitted;
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
  for (const [p, s] of Object.entries(samples) as Array<[ContentProfile, CostSample[]]>) {
    if (s.length === 0) continue;
    const etcd = fitLinear(s, (x) => x.etcdBytes);
    profiles[p] = {
      etcdBytesPerObject: round(etcd.perObject, 0),
      etcdBytesPerObjectByte: round(etcd.perObjectByte, 4),
      apiserverHeapBytesPerObject: round(heap.objects, 0),
      apiserverHeapBytesPerObjectByte: round(heap.objectBytes, 4),
      apiserverHeapBytesPerContentValue: round(heap.contentValues, 1),
    };
  }
  return { measuredBy, profiles };
}

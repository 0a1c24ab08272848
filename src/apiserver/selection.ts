// Which blobs of a catalog's revision a request's selectors can match, computed from the
// revision's indexes (schema runs, package runs, the name index) when the selectors pin the
// catalog, schema, package or name, so that `-l package=foo` reads the package's blobs only.
// The pins only narrow the candidates: every candidate is then matched against the whole
// selector (labels and fields), so the answer is exact whatever the pins.
import {
  LABEL_CATALOG,
  LABEL_NAME,
  LABEL_PACKAGE,
  LABEL_PACKAGE_OR_NAME,
  LABEL_SCHEMA,
  FIELD_CATALOG,
  FIELD_NAME,
  FIELD_PACKAGE,
  FIELD_SCHEMA,
  labelValue,
} from '../api/v1/index.js';
import type { RevisionLease } from '../server/index.js';
import {
  matchesFields,
  parseFieldSelector,
  pinnedFieldValue,
  SELECTABLE_FIELDS,
} from './field-selector.js';
import type { FieldRequirement } from './field-selector.js';
import {
  matchesLabels,
  parseLabelSelector,
  pinnedLabelValues,
  SelectorError,
} from './label-selector.js';
import type { LabelRequirement } from './label-selector.js';
import type { BlobEntry } from './served-object.js';
import { badRequest } from './status.js';

export type SeqRanges = Array<[number, number]>;

export interface Selectors {
  labels: LabelRequirement[];
  fields: FieldRequirement[];
}

/**
 * The selectors of a request's query (fields among `selectable`: CatalogMetadata's by default); a
 * 400 with the apiserver's message when one does not parse.
 */
export function parseSelectors(
  query: URLSearchParams,
  selectable: readonly string[] = SELECTABLE_FIELDS,
): Selectors {
  try {
    return {
      labels: parseLabelSelector(query.get('labelSelector') ?? ''),
      fields: parseFieldSelector(query.get('fieldSelector') ?? '', selectable),
    };
  } catch (err) {
    if (err instanceof SelectorError) throw badRequest(err.message);
    throw err;
  }
}

export function matchesSelectors(
  s: Selectors,
  entry: Pick<BlobEntry, 'labels' | 'fields'>,
): boolean {
  return matchesLabels(s.labels, entry.labels) && matchesFields(s.fields, entry.fields);
}

/** A label value that labelValue may have hash-encoded (`…-<16 hex>`): it cannot be mapped back to a name. */
function maybeEncoded(value: string): boolean {
  return /(^|-)[0-9a-f]{16}$/.test(value);
}

/**
 * The raw values a dimension may take: from the label's pinned values (mapped back to raw
 * values through `known`, the index's keys, or taken as they are when `known` is undefined and
 * the value cannot be an encoding) and the field's pinned value. undefined: not pinned.
 */
export function pinnedRaw(
  s: Selectors,
  label: string,
  field: string,
  known: readonly string[] | undefined,
): string[] | undefined {
  let raw: string[] | undefined;
  const labelValues = pinnedLabelValues(s.labels, label);
  if (labelValues !== undefined) {
    if (known) raw = known.filter((k) => labelValues.includes(labelValue(k)));
    else if (!labelValues.some(maybeEncoded)) raw = labelValues;
  }
  const fieldValue = pinnedFieldValue(s.fields, field);
  if (fieldValue === null) return [];
  if (fieldValue !== undefined)
    raw = raw === undefined ? [fieldValue] : raw.filter((v) => v === fieldValue);
  return raw;
}

/** Whether the selectors can match objects of this catalog at all. */
export function catalogMayMatch(s: Selectors, catalog: string): boolean {
  const raw = pinnedRaw(s, LABEL_CATALOG, FIELD_CATALOG, [catalog]);
  return raw === undefined || raw.length > 0;
}

export function unionRanges(lists: SeqRanges[]): SeqRanges {
  const all = lists.flat().sort((a, b) => a[0] - b[0]);
  const out: SeqRanges = [];
  for (const [s, e] of all) {
    const last = out.at(-1);
    if (last && last[1] >= s) last[1] = Math.max(last[1], e);
    else out.push([s, e]);
  }
  return out;
}

export function intersect(a: SeqRanges, b: SeqRanges): SeqRanges {
  const out: SeqRanges = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const s = Math.max(a[i]![0], b[j]![0]);
    const e = Math.min(a[i]![1], b[j]![1]);
    if (s < e) out.push([s, e]);
    if (a[i]![1] < b[j]![1]) i++;
    else j++;
  }
  return out;
}

/**
 * The sequence ranges of a revision's blobs that the selectors may match (a superset of the
 * matches; whole identity groups, so repeated identities keep their order).
 */
export async function candidateRanges(s: Selectors, lease: RevisionLease): Promise<SeqRanges> {
  let ranges: SeqRanges = lease.blobs > 0 ? [[0, lease.blobs]] : [];
  const narrow = async (values: string[] | undefined, field: 'schema' | 'package' | 'name') => {
    if (values === undefined || ranges.length === 0) return;
    const lists = await Promise.all(values.map((v) => lease.selectSeqs({ [field]: v })));
    ranges = intersect(ranges, unionRanges(lists));
  };
  await narrow(
    pinnedRaw(
      s,
      LABEL_SCHEMA,
      FIELD_SCHEMA,
      lease.schemas().map((x) => x.schema),
    ),
    'schema',
  );
  await narrow(pinnedRaw(s, LABEL_PACKAGE, FIELD_PACKAGE, lease.packageNames()), 'package');
  await narrow(pinnedRaw(s, LABEL_NAME, FIELD_NAME, undefined), 'name');
  // packageOrName: the package's blobs, and the blobs named so (a package's olm.package blob).
  const either = pinnedLabelValues(s.labels, LABEL_PACKAGE_OR_NAME);
  if (either !== undefined && ranges.length > 0) {
    const packages = lease.packageNames().filter((p) => either.includes(labelValue(p)));
    const lists = await Promise.all(packages.map((p) => lease.selectSeqs({ package: p })));
    if (!either.some(maybeEncoded))
      lists.push(...(await Promise.all(either.map((n) => lease.selectSeqs({ name: n })))));
    else lists.push([[0, lease.blobs]]);
    ranges = intersect(ranges, unionRanges(lists));
  }
  return ranges;
}

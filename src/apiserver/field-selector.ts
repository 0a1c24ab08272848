// Field selectors (`--field-selector`, fieldSelector=): apimachinery's fields.ParseSelector
// grammar (terms joined by commas, each `field=value`, `field==value` or `field!=value`, with
// `\` escaping `,`, `=`, `!` and itself) over the fields the CRD makes selectable and
// metadata.name; any other field is refused as the apiserver refuses it.
import { CATALOG_METADATA_SELECTABLE_FIELDS } from '../api/v1/index.js';
import { SelectorError } from './label-selector.js';

export interface FieldRequirement {
  field: string;
  operator: '=' | '!=';
  value: string;
}

export const FIELD_METADATA_NAME = 'metadata.name';
/** The fields a selector may name: metadata.name and the CRD's selectableFields. */
export const SELECTABLE_FIELDS: readonly string[] = [
  FIELD_METADATA_NAME,
  ...CATALOG_METADATA_SELECTABLE_FIELDS,
];

/** Splits on an unescaped separator, keeping escapes. */
function splitTerms(s: string): string[] {
  const out: string[] = [];
  let cur = '';
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if (c === '\\' && i + 1 < s.length) {
      cur += c + s[i + 1]!;
      i++;
    } else if (c === ',') {
      out.push(cur);
      cur = '';
    } else cur += c;
  }
  out.push(cur);
  return out;
}

function unescape(s: string, term: string): string {
  let out = '';
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if (c !== '\\') {
      if (c === '=' || c === ',')
        throw new SelectorError(
          `invalid field selector: '${term}': invalid selector: unescaped '${c}' in value`,
        );
      out += c;
      continue;
    }
    const n = s[++i];
    if (n === undefined || !['\\', ',', '=', '!'].includes(n))
      throw new SelectorError(
        `invalid field selector: '${term}': invalid escape sequence: \\${n ?? ''}`,
      );
    out += n;
  }
  return out;
}

/** Parses a field selector (an empty one selects everything) over `selectable` fields. Throws SelectorError. */
export function parseFieldSelector(
  selector: string,
  selectable: readonly string[] = SELECTABLE_FIELDS,
): FieldRequirement[] {
  if (selector.trim() === '') return [];
  const reqs: FieldRequirement[] = [];
  for (const term of splitTerms(selector)) {
    if (term === '') continue;
    const m = /^((?:[^=!\\]|\\.)*?)(!=|==|=)(.*)$/s.exec(term);
    if (!m) throw new SelectorError(`invalid selector: '${selector}'; can't understand '${term}'`);
    const field = m[1]!.trim();
    if (!selectable.includes(field)) throw new SelectorError(`field label not supported: ${field}`);
    reqs.push({
      field,
      operator: m[2] === '!=' ? '!=' : '=',
      value: unescape(m[3]!, term),
    });
  }
  return reqs;
}

/** Whether the fields (absent: undefined, which matches only `!=`) satisfy every requirement. */
export function matchesFields(
  reqs: readonly FieldRequirement[],
  fields: Readonly<Record<string, string | undefined>>,
): boolean {
  // The apiserver compares an absent field as the empty string.
  return reqs.every((r) => ((fields[r.field] ?? '') === r.value) === (r.operator === '='));
}

/** The value a field must have (an = term), undefined when free; two different = terms: null (nothing matches). */
export function pinnedFieldValue(
  reqs: readonly FieldRequirement[],
  field: string,
): string | null | undefined {
  let pinned: string | undefined;
  for (const r of reqs) {
    if (r.field !== field || r.operator !== '=') continue;
    if (pinned !== undefined && pinned !== r.value) return null;
    pinned = r.value;
  }
  return pinned;
}

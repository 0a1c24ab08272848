// Kubernetes label selectors (`-l`, labelSelector=): the grammar of apimachinery's labels.Parse
// (=, ==, !=, in, notin, exists, !exists, gt, lt; requirements joined by commas), its error
// messages, and matching against an object's labels.
import { isValidLabelValue } from '../api/v1/index.js';

export type LabelOperator = '=' | '!=' | 'in' | 'notin' | 'exists' | '!' | 'gt' | 'lt';

export interface LabelRequirement {
  key: string;
  operator: LabelOperator;
  /** Sorted; one value for = and !=, none for exists and !. */
  values: string[];
}

/** A selector that does not parse: its message is the apiserver's (a 400 BadRequest). */
export class SelectorError extends Error {
  override name = 'SelectorError';
}

type Token =
  | { kind: 'id'; text: string }
  | { kind: 'op'; text: '!' | '=' | '==' | '!=' | '(' | ')' | ',' | '>' | '<' }
  | { kind: 'end'; text: '' };

const SPECIAL = new Set(['!', '=', '(', ')', ',', '<', '>']);

function tokenize(s: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < s.length) {
    const c = s[i]!;
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    if (SPECIAL.has(c)) {
      const two = s.slice(i, i + 2);
      if (two === '==' || two === '!=') {
        tokens.push({ kind: 'op', text: two });
        i += 2;
      } else {
        tokens.push({ kind: 'op', text: c as '!' });
        i++;
      }
      continue;
    }
    let j = i;
    while (j < s.length && !SPECIAL.has(s[j]!) && !/\s/.test(s[j]!)) j++;
    tokens.push({ kind: 'id', text: s.slice(i, j) });
    i = j;
  }
  tokens.push({ kind: 'end', text: '' });
  return tokens;
}

const QUALIFIED_NAME = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

function checkKey(key: string): void {
  const slash = key.lastIndexOf('/');
  const prefix = slash >= 0 ? key.slice(0, slash) : undefined;
  const name = slash >= 0 ? key.slice(slash + 1) : key;
  const ok =
    name.length <= 63 &&
    QUALIFIED_NAME.test(name) &&
    (prefix === undefined || (prefix.length <= 253 && DNS_SUBDOMAIN.test(prefix)));
  if (!ok)
    throw new SelectorError(
      `unable to parse requirement: <nil>: Invalid value: ${JSON.stringify(key)}: name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character`,
    );
}

function checkValue(key: string, value: string): void {
  if (!isValidLabelValue(value))
    throw new SelectorError(
      `unable to parse requirement: values[0][${key}]: Invalid value: ${JSON.stringify(value)}: a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character`,
    );
}

const OPERATORS = 'in, notin, =, ==, !=, gt, lt';

class Parser {
  private i = 0;
  private key = '';
  constructor(private readonly tokens: Token[]) {}

  private peek(): Token {
    return this.tokens[this.i]!;
  }
  private next(): Token {
    return this.tokens[this.i++]!;
  }

  parse(): LabelRequirement[] {
    const reqs: LabelRequirement[] = [];
    if (this.peek().kind === 'end') return reqs;
    for (;;) {
      reqs.push(this.requirement());
      const t = this.next();
      if (t.kind === 'end') return reqs;
      if (!(t.kind === 'op' && t.text === ',')) {
        throw new SelectorError(`found '${t.text}', expected: ',' or 'end of string'`);
      }
      if (this.peek().kind === 'end')
        throw new SelectorError(`found '', expected: !, identifier, or 'end of string'`);
    }
  }

  private requirement(): LabelRequirement {
    let t = this.next();
    let negated = false;
    if (t.kind === 'op' && t.text === '!') {
      negated = true;
      t = this.next();
    }
    if (t.kind !== 'id') throw new SelectorError(`found '${t.text}', expected: identifier`);
    const key = t.text;
    checkKey(key);
    const after = this.peek();
    if (negated || after.kind === 'end' || (after.kind === 'op' && after.text === ',')) {
      if (negated && !(after.kind === 'end' || (after.kind === 'op' && after.text === ',')))
        throw new SelectorError(`found '${after.text}', expected: ',' or 'end of string'`);
      return { key, operator: negated ? '!' : 'exists', values: [] };
    }
    const op = this.next();
    if (op.kind === 'id' && (op.text === 'in' || op.text === 'notin')) {
      this.key = key;
      return { key, operator: op.text, values: this.valueSet() };
    }
    if (op.kind === 'op' && ['=', '==', '!=', '>', '<'].includes(op.text)) {
      const v = this.peek();
      let value = '';
      if (v.kind === 'id') {
        value = v.text;
        this.next();
      } else if (!(v.kind === 'end' || (v.kind === 'op' && v.text === ','))) {
        throw new SelectorError(`found '${v.text}', expected: identifier`);
      }
      if (op.text === '>' || op.text === '<') {
        if (!/^-?[0-9]+$/.test(value))
          throw new SelectorError(
            `unable to parse requirement: for 'Gt', 'Lt' operators, the value must be an integer`,
          );
        return { key, operator: op.text === '>' ? 'gt' : 'lt', values: [value] };
      }
      checkValue(key, value);
      return { key, operator: op.text === '!=' ? '!=' : '=', values: [value] };
    }
    throw new SelectorError(`found '${op.text}', expected: ${OPERATORS}`);
  }

  private valueSet(): string[] {
    const open = this.next();
    if (!(open.kind === 'op' && open.text === '('))
      throw new SelectorError(`found '${open.text}', expected: '('`);
    const values = new Set<string>();
    let expectValue = true;
    for (;;) {
      const t = this.next();
      if (t.kind === 'op' && t.text === ')') {
        if (expectValue) values.add('');
        break;
      }
      if (t.kind === 'op' && t.text === ',') {
        if (expectValue) values.add('');
        expectValue = true;
        continue;
      }
      if (t.kind === 'id' && expectValue) {
        checkValue(this.key, t.text);
        values.add(t.text);
        expectValue = false;
        continue;
      }
      throw new SelectorError(`found '${t.text}', expected: ',', ')' or identifier`);
    }
    return [...values].sort();
  }
}

/** Parses a label selector (an empty one selects everything). Throws SelectorError. */
export function parseLabelSelector(selector: string): LabelRequirement[] {
  return new Parser(tokenize(selector)).parse();
}

/** Whether labels satisfy every requirement. */
export function matchesLabels(
  reqs: readonly LabelRequirement[],
  labels: Readonly<Record<string, string>>,
): boolean {
  return reqs.every((r) => {
    const has = Object.hasOwn(labels, r.key);
    const v = labels[r.key];
    switch (r.operator) {
      case 'exists':
        return has;
      case '!':
        return !has;
      case '=':
      case 'in':
        return has && r.values.includes(v!);
      case '!=':
      case 'notin':
        return !has || !r.values.includes(v!);
      case 'gt':
      case 'lt': {
        if (!has || !/^-?[0-9]+$/.test(v!)) return false;
        const n = Number(v);
        const bound = Number(r.values[0]);
        return r.operator === 'gt' ? n > bound : n < bound;
      }
    }
  });
}

/**
 * The values a label must take to match (from =, == and in), or undefined when the requirements
 * leave the label free: what lets a list use the revision's indexes.
 */
export function pinnedLabelValues(
  reqs: readonly LabelRequirement[],
  key: string,
): string[] | undefined {
  let pinned: string[] | undefined;
  for (const r of reqs) {
    if (r.key !== key || (r.operator !== '=' && r.operator !== 'in')) continue;
    pinned = pinned === undefined ? r.values : pinned.filter((v) => r.values.includes(v));
  }
  return pinned;
}

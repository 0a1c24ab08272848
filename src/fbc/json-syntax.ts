// Finds where and why a JSON text is invalid. Only used on the error path (JSON.parse does the
// parsing), because V8's messages do not always carry a position. Iterative: any nesting depth.

export interface JsonSyntaxProblem {
  /** UTF-16 index into the text. */
  index: number;
  reason: string;
}

const NUMBER = /-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?/y;
const LITERAL = /true|false|null/y;

function describe(s: string, i: number): string {
  return i >= s.length ? 'unexpected end of input' : `unexpected ${JSON.stringify(s[i])}`;
}

/** The first syntax error of `s` as one JSON value, or undefined when it is valid. */
export function findJsonSyntaxError(s: string): JsonSyntaxProblem | undefined {
  const stack: ('{' | '[')[] = [];
  type Want = 'value' | 'valueOrEnd' | 'keyOrEnd' | 'key' | 'colon' | 'after';
  let want: Want = 'value';
  let i = 0;
  const ws = () => {
    while (i < s.length && (s[i] === ' ' || s[i] === '\t' || s[i] === '\n' || s[i] === '\r')) i++;
  };
  const str = (): JsonSyntaxProblem | undefined => {
    i++; // opening quote
    while (i < s.length) {
      const c = s.charCodeAt(i);
      if (c === 0x22) {
        i++;
        return undefined;
      }
      if (c < 0x20) return { index: i, reason: 'control character in string' };
      if (c === 0x5c) {
        const e = s[i + 1];
        if (e === 'u') {
          if (!/^[0-9a-fA-F]{4}$/.test(s.slice(i + 2, i + 6)))
            return { index: i, reason: 'invalid \\u escape in string' };
          i += 6;
          continue;
        }
        if (e === undefined || !'"\\/bfnrt'.includes(e))
          return { index: i, reason: 'invalid escape in string' };
        i += 2;
        continue;
      }
      i++;
    }
    return { index: i, reason: 'unterminated string' };
  };
  for (;;) {
    ws();
    const c = s[i];
    switch (want) {
      case 'value':
      case 'valueOrEnd': {
        if (want === 'valueOrEnd' && c === ']') {
          stack.pop();
          i++;
          want = 'after';
          break;
        }
        if (c === '{' || c === '[') {
          stack.push(c);
          i++;
          want = c === '{' ? 'keyOrEnd' : 'valueOrEnd';
          break;
        }
        if (c === '"') {
          const p = str();
          if (p) return p;
          want = 'after';
          break;
        }
        NUMBER.lastIndex = i;
        LITERAL.lastIndex = i;
        if (NUMBER.test(s)) i = NUMBER.lastIndex;
        else if (LITERAL.test(s)) i = LITERAL.lastIndex;
        else return { index: i, reason: `${describe(s, i)}, expected a value` };
        want = 'after';
        break;
      }
      case 'keyOrEnd':
      case 'key':
        if (want === 'keyOrEnd' && c === '}') {
          stack.pop();
          i++;
          want = 'after';
          break;
        }
        if (c !== '"') return { index: i, reason: `${describe(s, i)}, expected a string key` };
        {
          const p = str();
          if (p) return p;
        }
        want = 'colon';
        break;
      case 'colon':
        if (c !== ':') return { index: i, reason: `${describe(s, i)}, expected ':'` };
        i++;
        want = 'value';
        break;
      case 'after': {
        const top = stack[stack.length - 1];
        if (top === undefined)
          return i < s.length
            ? { index: i, reason: `${describe(s, i)} after the value` }
            : undefined;
        if (c === ',') {
          i++;
          want = top === '{' ? 'key' : 'value';
        } else if ((top === '{' && c === '}') || (top === '[' && c === ']')) {
          stack.pop();
          i++;
        } else
          return {
            index: i,
            reason: `${describe(s, i)}, expected ',' or '${top === '{' ? '}' : ']'}'`,
          };
        break;
      }
    }
  }
}

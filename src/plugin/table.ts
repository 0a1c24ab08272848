// kubectl's table style: upper-case headers, columns padded like kubectl's tabwriter (min
// width 6, padding 3, the last column unpadded), `<none>` for empty cells, ages like
// `kubectl get` (HumanDuration). Cells are catalog text: one line each, their control
// characters made visible (util/terminal-text.ts) before the columns are measured.
import { humanDuration } from '../util/human-duration.js';
import { terminalLine } from '../util/terminal-text.js';

interface TableOptions {
  noHeaders?: boolean;
}

/** The table as text, one line per row, each ending in a newline. */
export function formatTable(
  headers: readonly string[],
  rows: ReadonlyArray<readonly string[]>,
  opts: TableOptions = {},
): string {
  const all = [
    ...(opts.noHeaders ? [] : [headers.map((h) => h.toUpperCase())]),
    ...rows.map((r) => headers.map((_, i) => clean(r[i]))),
  ];
  if (all.length === 0) return '';
  const widths = headers.map((_, i) => Math.max(6, ...all.map((r) => [...r[i]!].length + 3)));
  return all
    .map((r) =>
      r
        .map((cell, i) =>
          i === r.length - 1 ? cell : cell + ' '.repeat(widths[i]! - [...cell].length),
        )
        .join('')
        .trimEnd(),
    )
    .map((l) => `${l}\n`)
    .join('');
}

/** One line, no tabs, no raw control character; empty (or not a string) → `<none>`. */
function clean(s: string | undefined): string {
  const t = typeof s === 'string' ? terminalLine(s.replace(/[\t\r\n]+/g, ' ').trim()) : '';
  return t === '' ? '<none>' : t;
}

/** The age of an RFC 3339 timestamp, or '' when absent or unparsable. */
export function age(timestamp: string | undefined, now: Date): string {
  if (!timestamp) return '';
  const t = Date.parse(timestamp);
  return Number.isNaN(t) ? '' : humanDuration(now.getTime() - t);
}

/** The first line of a text, cut to `max` characters with an ellipsis. */
export function excerpt(text: string | undefined, max = 60): string {
  const line = (typeof text === 'string' ? text : '').trim().split('\n')[0]!.trim();
  const chars = [...line];
  return chars.length <= max ? line : `${chars.slice(0, max - 3).join('')}...`;
}

/** `sha256:` and the first 12 hex digits of a digest reference or content hash. */
export function shortDigest(ref: string | undefined): string {
  if (!ref) return '';
  const m = /sha256:([a-f0-9]{12})/.exec(ref);
  return m ? `sha256:${m[1]}` : ref;
}

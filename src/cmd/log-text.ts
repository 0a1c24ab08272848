// `--log-format text`: pino's JSON lines turned into one human-readable line each, for a
// developer's terminal (`make run`). A pino destination (anything with `write(line)`), so pino
// stays the one logger and JSON stays the default; pino-pretty would have added a dependency
// tree for what fits in this file (docs/controller.md).
import { escapeJson, quoteText, terminalLine } from '../util/terminal-text.js';

const LEVEL_NAMES: Record<number, string> = {
  10: 'TRACE',
  20: 'DEBUG',
  30: 'INFO',
  40: 'WARN',
  50: 'ERROR',
  60: 'FATAL',
};

// Fields every line carries that the text line shows in its own place, or not at all (the
// component is always catalogd).
const SHOWN_APART = new Set(['level', 'time', 'msg', 'pid', 'hostname', 'component']);

/** HH:MM:SS.mmm of an epoch-millisecond time, in local time unless `utc`. */
export function clockTime(epochMs: number, utc = false): string {
  const d = new Date(epochMs);
  const [h, m, s, ms] = utc
    ? [d.getUTCHours(), d.getUTCMinutes(), d.getUTCSeconds(), d.getUTCMilliseconds()]
    : [d.getHours(), d.getMinutes(), d.getSeconds(), d.getMilliseconds()];
  const two = (n: number) => String(n).padStart(2, '0');
  return `${two(h)}:${two(m)}:${two(s)}.${String(ms).padStart(3, '0')}`;
}

/**
 * A value as it follows `key=`: bare when that is unambiguous, else JSON. Values quote catalog
 * content (an error's message names a file of the image): no control character is written raw
 * (quoteText, escapeJson: util/terminal-text.ts).
 */
function fieldValue(value: unknown): string {
  if (typeof value === 'string')
    return /^[^\s"=]+$/.test(value) && terminalLine(value) === value ? value : quoteText(value);
  // An error (pino's err serializer: type, message, stack): its message; the stack is noise
  // on a terminal, and the JSON format keeps it.
  if (isSerializedError(value)) return quoteText(value.message);
  const json = JSON.stringify(value);
  return json === undefined ? terminalLine(String(value)) : escapeJson(json);
}

function isSerializedError(value: unknown): value is { message: string } {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { message?: unknown }).message === 'string' &&
    typeof (value as { stack?: unknown }).stack === 'string'
  );
}

/**
 * One pino JSON line as `HH:MM:SS.mmm LEVEL msg key=value ...` (newline-terminated). A line
 * that is not a JSON object passes through unchanged.
 */
export function formatLogLine(line: string, utc = false): string {
  let record: unknown;
  try {
    record = JSON.parse(line);
  } catch {
    return line.endsWith('\n') ? line : `${line}\n`;
  }
  if (typeof record !== 'object' || record === null || Array.isArray(record)) {
    return line.endsWith('\n') ? line : `${line}\n`;
  }
  const fields = record as Record<string, unknown>;
  const parts: string[] = [];
  if (typeof fields.time === 'number') parts.push(clockTime(fields.time, utc));
  const level = typeof fields.level === 'number' ? fields.level : undefined;
  parts.push((level !== undefined ? (LEVEL_NAMES[level] ?? `L${level}`) : '-').padEnd(5));
  if (typeof fields.msg === 'string' && fields.msg !== '') parts.push(terminalLine(fields.msg));
  for (const [key, value] of Object.entries(fields)) {
    if (SHOWN_APART.has(key) || value === undefined) continue;
    parts.push(`${key}=${fieldValue(value)}`);
  }
  return `${parts.join(' ')}\n`;
}

/** A pino destination writing each record as a text line to `out` (e.g. process.stdout). */
export function textLogDestination(out: { write(s: string): unknown }): {
  write(line: string): void;
} {
  return { write: (line) => void out.write(formatLogLine(line)) };
}

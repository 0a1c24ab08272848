// Catalog strings are hostile input (SPEC §5.2): whoever builds a catalog image controls every
// string in it, and a terminal obeys the control characters it is sent (OSC 52 writes the
// clipboard, OSC 0 the window title, CSI sequences move the cursor and erase lines). The one
// rule for every text a person reads (the plugin's tables and views, warnings, render errors,
// condition messages and Events), after kubectl's printers (cli-runtime printers.EscapeTerminal,
// which writes ESC as `^[`):
//
// - C0 controls U+0000..U+001F in caret notation (`^@`, `^G`, `^[`, `^M`...), but for tab and
//   newline in a text that is multi-line (terminalText) as opposed to one line (terminalLine);
// - DEL U+007F as `^?`;
// - C1 controls U+0080..U+009F (U+009B is a one-character CSI) and the Unicode bidirectional
//   formatting characters (U+061C, U+200E, U+200F, U+202A..U+202E, U+2066..U+2069: they reorder
//   what follows them) as `<U+XXXX>`, as less(1) shows them.
//
// Everything else is kept. The result holds none of those characters, so the rule is idempotent,
// and it takes one pass (linear in the text). It is for reading, not reversible: -o json carries
// the exact values, escaped as JSON (jsonText).

// Control characters in these patterns are the point: they are what the rule finds.
/* eslint-disable no-control-regex */
/** What the rule replaces in one-line text. */
const UNSAFE_LINE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;
/** What it replaces in multi-line text: the same but tab and newline. */
const UNSAFE_TEXT =
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;
/** What JSON.stringify leaves raw of the characters above: DEL, C1 and the bidi controls. */
const UNSAFE_JSON = /[\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;
/* eslint-enable no-control-regex */

const hex4 = (c: string) => c.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0');

function visible(c: string): string {
  const code = c.charCodeAt(0);
  if (code < 0x20) return `^${String.fromCharCode(code + 0x40)}`;
  if (code === 0x7f) return '^?';
  return `<U+${hex4(c)}>`;
}

/** A multi-line text for a terminal: controls made visible, tabs and newlines kept. */
export function terminalText(s: string): string {
  return s.replace(UNSAFE_TEXT, visible);
}

/** One line for a terminal: controls made visible, tabs and newlines too (`^I`, `^J`). */
export function terminalLine(s: string): string {
  return s.replace(UNSAFE_LINE, visible);
}

const jsonEscape = (c: string) => `\\u${hex4(c).toLowerCase()}`;

/**
 * A string as a JSON string literal (Go's %q in spirit) that holds no control or bidi character:
 * JSON.stringify's escapes, and `\u007f`, `\u0080`..`\u009f` and the bidi controls as well.
 * What names a file or a value inside a message, so that no name can forge a line.
 */
export function quoteText(s: string): string {
  return JSON.stringify(s).replace(UNSAFE_JSON, jsonEscape);
}

/**
 * A JSON document (indented by `indent`) with DEL, the C1 controls and the bidi controls
 * escaped as `\u0080`-style escapes too, which JSON.stringify leaves raw: valid JSON, equal to
 * JSON.stringify's when parsed. Those characters occur only inside strings, where the escape
 * means the same character.
 */
export function jsonText(value: unknown, indent = 2): string {
  return escapeJson(JSON.stringify(value, null, indent) ?? 'null');
}

/** A JSON text (e.g. JSON.stringify's) with DEL, C1 and the bidi controls escaped, as jsonText. */
export function escapeJson(json: string): string {
  return json.replace(UNSAFE_JSON, jsonEscape);
}

/** A character a name may hold and still be printed bare in a message (see displayName). */
const PLAIN_NAME = /^[^\p{C}\p{Z}"'\\:]+$/u;

/**
 * A name (a file's path, a value) as a message shows it: as it is when it is plain (printable,
 * no space, quote, backslash or colon: every ordinary file name), else quoted (quoteText). So a
 * name with a newline, an escape or a `:` cannot forge a line or a `file:line:column`.
 */
export function displayName(s: string): string {
  return PLAIN_NAME.test(s) ? s : quoteText(s);
}

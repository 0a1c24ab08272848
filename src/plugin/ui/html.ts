// HTML building with escaping by default: every interpolated value of the `html` template is
// escaped unless it is already a SafeHtml (built by this module). Catalog strings (names,
// descriptions, URLs) are data, never markup; a catalog value of another JSON type than the
// template expects (an object where a string belongs) renders as nothing, never as a crash.

/** Markup that was built safely (escaped values or trusted templates). */
export class SafeHtml {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
  '`': '&#96;',
};

/** Escapes text for element content and quoted attribute values. */
export function escapeHtml(s: string): string {
  return s.replace(/[&<>"'`]/g, (c) => ESCAPES[c]!);
}

type Value = SafeHtml | string | number | boolean | undefined | null | readonly Value[];

/**
 * A value as markup: text escaped, SafeHtml as is, arrays joined. Whatever else a catalog slipped
 * in where the types say string (an object, `{"toString":1}` included, whose String() throws)
 * is absent.
 */
function render(v: unknown): string {
  if (typeof v === 'string') return escapeHtml(v);
  if (typeof v === 'number' || v === true) return String(v);
  if (v instanceof SafeHtml) return v.value;
  if (Array.isArray(v)) return v.map(render).join('');
  return '';
}

/** The tagged template: `html\`<p>${text}</p>\`` escapes text. */
export function html(strings: TemplateStringsArray, ...values: Value[]): SafeHtml {
  let out = strings[0]!;
  for (let i = 0; i < values.length; i++) out += render(values[i]) + strings[i + 1]!;
  return new SafeHtml(out);
}

/** Markup trusted as it is (only for strings this program made, never catalog data). */
export function trusted(s: string): SafeHtml {
  return new SafeHtml(s);
}

/** The longest URL from catalog data that becomes a link (longer: shown as text). */
export const MAX_URL = 4096;

/**
 * A URL from catalog data that may become an href: http, https and mailto only (no javascript:,
 * data:, vbscript: and the like, however they are spelled); otherwise undefined.
 */
export function safeUrl(url: unknown): string | undefined {
  if (typeof url !== 'string' || url.length > MAX_URL) return undefined;
  // Browsers drop tabs, newlines and leading controls/spaces before reading the scheme.
  // eslint-disable-next-line no-control-regex
  const cleaned = url.replace(/[\u0000-\u0020\u007f]+/g, '');
  if (!/^(https?:\/\/|mailto:)/i.test(cleaned)) return undefined;
  try {
    return new URL(cleaned).href;
  } catch {
    return undefined;
  }
}

// A lone surrogate (JSON allows "\ud800"): a high one with no low one after it, or a low one
// with no high one before it.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/**
 * A path segment of one of our URLs; empty for a value that is not a string. Lone surrogates
 * (which encodeURIComponent throws on) become U+FFFD, as the response's UTF-8 makes them anyway.
 */
export const seg = (s: unknown): string =>
  typeof s === 'string' ? encodeURIComponent(s.replace(LONE_SURROGATE, '\uFFFD')) : '';

/** The package page's URL (routes.ts: /package/C/P). */
export const packageHref = (catalog: unknown, pkg: unknown) =>
  `/package/${seg(catalog)}/${seg(pkg)}`;

/** A table's header row: one column header (`<th scope="col">`) per name. */
export function tableHead(...columns: string[]): SafeHtml {
  return html`<thead>
    <tr>
      ${columns.map((c) => html`<th scope="col">${c}</th>`)}
    </tr>
  </thead>`;
}

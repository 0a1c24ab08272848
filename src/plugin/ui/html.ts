// HTML building with escaping by default: every interpolated value of the `html` template is
// escaped unless it is already a SafeHtml (built by this module). Catalog strings (names,
// descriptions, URLs) are data, never markup.

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

function render(v: Value): string {
  if (v === undefined || v === null || v === false) return '';
  if (v instanceof SafeHtml) return v.value;
  if (Array.isArray(v)) return (v as readonly Value[]).map(render).join('');
  return escapeHtml(String(v));
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

/** A path segment of one of our URLs. */
export const seg = (s: string) => encodeURIComponent(s);

/** The package page's URL (routes.ts: /package/C/P). */
export const packageHref = (catalog: string, pkg: string) => `/package/${seg(catalog)}/${seg(pkg)}`;

/** A table's header row: one column header (`<th scope="col">`) per name. */
export function tableHead(...columns: string[]): SafeHtml {
  return html`<thead>
    <tr>
      ${columns.map((c) => html`<th scope="col">${c}</th>`)}
    </tr>
  </thead>`;
}

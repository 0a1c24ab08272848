// Package descriptions are Markdown written by catalog authors: rendered with markdown-it with
// raw HTML off (tags come out as text), only http(s)/mailto links (markdown-it's validateLink
// refuses javascript:, vbscript:, file: and data: except images; we narrow it further) and
// images dropped to their alt text (no requests to third parties from a catalog's content).
//
// A description is hostile input of any size (SPEC §5.2): a card reads only its first
// EXCERPT_SCAN characters, in linear time (no pattern here backtracks); the package page renders
// at most MAX_MARKDOWN characters, in the page worker (render-thread.ts: markdown-it is linear,
// but takes milliseconds a kilobyte on the worst input).
import MarkdownIt from 'markdown-it';
import { safeUrl } from './html.js';

/** Characters of a description rendered as Markdown on the package page (the rest is cut). */
export const MAX_MARKDOWN = 64 * 1024;
/** Characters of a description read for a card's excerpt. */
export const EXCERPT_SCAN = 4096;
/** Characters a card shows of its description. */
export const CARD_EXCERPT = 160;

const md = new MarkdownIt({ html: false, linkify: false, typographer: false });
md.validateLink = (url: string) => safeUrl(url) !== undefined;
md.disable(['image']);

const defaultLinkOpen = md.renderer.rules.link_open;
md.renderer.rules.link_open = (tokens, idx, options, env, self) => {
  const t = tokens[idx]!;
  t.attrSet('rel', 'noopener noreferrer nofollow');
  return defaultLinkOpen
    ? defaultLinkOpen(tokens, idx, options, env, self)
    : self.renderToken(tokens, idx, options);
};

/** The first `max` code units of `s`, without a high surrogate cut from its pair at the end. */
function cutUnits(s: string, max: number): string {
  if (s.length <= max) return s;
  const c = s.charCodeAt(max - 1);
  return s.slice(0, c >= 0xd800 && c <= 0xdbff ? max - 1 : max);
}

/** After the rendered part of a cut description: how much was left out. */
function cutNote(text: string, part: string): string {
  if (part.length === text.length) return '';
  const more = (text.length - part.length).toLocaleString('en-US');
  return `<p class="cut">(${more} more characters of the description are not shown.)</p>\n`;
}

/** Safe HTML from Markdown text: its first MAX_MARKDOWN characters, then a note of the rest. */
export function renderMarkdown(text: string): string {
  const part = cutUnits(text, MAX_MARKDOWN);
  return md.render(part) + cutNote(text, part);
}

/**
 * Markdown's links and images, `[text](url)` and `![alt](url)`, replaced by their text, in one
 * pass: the text holds no `]` and the URL no `)`, so a link can only end at the first `]` after
 * its `[` and the first `)` after that. Both are found by searches that only move forward, so a
 * run of `[` (or of `[a](`) costs its length, not its square. Same result as
 * `s.replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')`.
 */
export function stripLinks(s: string): string {
  let out = '';
  let from = 0; // first character not yet copied to out
  let close = -2; // the first ']' at or after the current '[' (-1: none left)
  let paren = -2; // the first ')' after the current '](' (-1: none left)
  for (let i = s.indexOf('['); i !== -1; i = s.indexOf('[', i + 1)) {
    if (close !== -1 && close <= i) close = s.indexOf(']', i + 1);
    if (close === -1) break;
    if (s[close + 1] !== '(') continue;
    if (paren !== -1 && paren <= close + 1) paren = s.indexOf(')', close + 2);
    if (paren === -1) break;
    const start = i > from && s[i - 1] === '!' ? i - 1 : i;
    out += s.slice(from, start) + s.slice(i + 1, close);
    from = paren + 1;
    i = paren;
  }
  return out + s.slice(from);
}

/**
 * A description as one line of plain text (a card's excerpt): Markdown's heading, emphasis,
 * code and link syntax out, and its entities and backslash escapes decoded as markdown-it
 * decodes them on the package page (every HTML entity: `&#x1F640;` is 🙀, `&eacute;` é), so
 * both pages show the same characters. Linear in the text's length: no pattern below backtracks
 * more than a few steps from any position (the heading's `\s+` ends the pattern, so it never
 * gives back what it took; markdown-it's unescapeAll reads an entity of at most 32 characters).
 */
export function plainText(markdown: string): string {
  const text = stripLinks(markdown)
    .replace(/^\s{0,3}#{1,6}\s+/gm, '')
    .replace(/\*\*|__|`/g, '');
  return md.utils.unescapeAll(text).trim().replace(/\s+/g, ' ');
}

/**
 * The first `max` characters (code points) of a text, the last three replaced by `...` when
 * there is more (or `more` says the text was already cut). Reads at most 2 × max code units.
 */
export function excerpt(text: string, max: number, more = false): string {
  const head = Array.from(text.slice(0, 2 * max));
  if (!more && text.length <= 2 * max && head.length <= max) return text;
  return `${head.slice(0, Math.max(0, max - 3)).join('')}...`;
}

/**
 * A card's excerpt of a description: its first EXCERPT_SCAN characters as plain text, cut to
 * `max`; empty for a description that is not a string.
 */
export function cardExcerpt(description: unknown, max = CARD_EXCERPT): string {
  if (typeof description !== 'string') return '';
  const part = cutUnits(description, EXCERPT_SCAN);
  return excerpt(plainText(part), max, part.length < description.length);
}

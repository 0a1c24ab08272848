// Package descriptions are Markdown written by catalog authors: rendered with markdown-it with
// raw HTML off (tags come out as text), only http(s)/mailto links (markdown-it's validateLink
// refuses javascript:, vbscript:, file: and data: except images; we narrow it further) and
// images dropped to their alt text (no requests to third parties from a catalog's content).
import MarkdownIt from 'markdown-it';
import { safeUrl } from './html.js';

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

/** Safe HTML from Markdown text. */
export function renderMarkdown(text: string): string {
  return md.render(text);
}

/**
 * A description as one line of plain text (a card's excerpt): Markdown's heading, emphasis,
 * code and link syntax out, and its entities and backslash escapes decoded as markdown-it
 * decodes them on the package page (every HTML entity: `&#x1F640;` is 🙀, `&eacute;` é), so
 * both pages show the same characters.
 */
export function plainText(markdown: string): string {
  const text = markdown
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/^\s{0,3}#{1,6}\s+/gm, '')
    .replace(/(\*\*|__|`)/g, '');
  return md.utils.unescapeAll(text).trim().replace(/\s+/g, ' ');
}

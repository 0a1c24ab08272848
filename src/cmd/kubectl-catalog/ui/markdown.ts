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

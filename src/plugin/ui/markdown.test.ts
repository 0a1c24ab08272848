// Descriptions are hostile input of any size. One 300 KB run of `[` took the packages page 64 s
// (the card's excerpt stripped links with /!?\[([^\]]*)\]\([^)]*\)/g, quadratic on it) while
// every other request waited. The calls run in a worker thread (test/support/off-thread.ts): a
// quadratic version fails these tests by their timeout instead of holding the run. No test
// reads a clock: only what comes out, and its size.
import { expect } from 'chai';
import type { Call, OffThreadCalls } from '../../../test/support/off-thread.js';
import { callOffThread } from '../../../test/support/off-thread.js';
import { escapeHtml, safeUrl, seg } from './html.js';
import {
  CARD_EXCERPT,
  EXCERPT_SCAN,
  MAX_MARKDOWN,
  cardExcerpt,
  excerpt,
  plainText,
  stripLinks,
} from './markdown.js';

const MB = 1 << 20;
const MARKDOWN = new URL('./markdown.ts', import.meta.url);

/** What a card shows of a text longer than its excerpt: the start and `...`. */
const cut = (text: string) => `${text.slice(0, CARD_EXCERPT - 3)}...`;

describe('ui text of any size (hostile descriptions)', function () {
  // A quadratic version of any call below takes minutes on these inputs.
  this.timeout(20_000);
  let running: OffThreadCalls | undefined;
  const offThread = (calls: Call[]) => {
    running = callOffThread(MARKDOWN, calls);
    return running.results;
  };
  afterEach(async () => {
    await running?.stop();
    running = undefined;
  });

  it('makes the excerpt of a 1 MB run of `[` (the 64-second description)', async () => {
    const run = '['.repeat(MB);
    const [text, links, card] = await offThread([
      ['plainText', run],
      ['stripLinks', run],
      ['cardExcerpt', run],
    ]);
    expect(text).to.equal(run);
    expect(links).to.equal(run);
    expect(card).to.equal(cut(run));
  });

  it('strips the links of 1 MB of link syntax that never closes, and of 1 MB of links', async () => {
    const inputs = ['!['.repeat(MB / 2), '[a]('.repeat(MB / 4), '[]('.repeat(MB / 3), '[a]'];
    const links = '[a](u) ![b](v)'.repeat(MB / 16);
    const results = await offThread([
      ...inputs.map((s): Call => ['plainText', s]),
      ['plainText', links],
      ['stripLinks', `${'['.repeat(MB / 2)}](x)`],
      ['cardExcerpt', links],
    ]);
    expect(results.slice(0, inputs.length)).to.deep.equal(inputs);
    expect(results[inputs.length]).to.equal('a b'.repeat(MB / 16));
    // One link: from the first `[` to the first `](…)`, its text the other `[`s.
    expect(results[inputs.length + 1]).to.equal('['.repeat(MB / 2 - 1));
    expect(results[inputs.length + 2]).to.equal(cut('a b'.repeat(MB / 16)));
  });

  it('strips headings, emphasis, entities, escapes and spaces of 1 MB inputs', async () => {
    const results = await offThread([
      ['plainText', `${'\n'.repeat(MB)}# Title`],
      ['plainText', '#'.repeat(MB)],
      ['plainText', `${'#'.repeat(6)}${' '.repeat(MB)}x`],
      ['plainText', '*'.repeat(MB)],
      ['plainText', `${'_'.repeat(MB)}x${'`'.repeat(MB)}`],
      ['plainText', '&'.repeat(MB)],
      ['plainText', '&#'.repeat(MB / 2)],
      ['plainText', `&${'a'.repeat(MB)};`],
      ['plainText', '&amp;'.repeat(MB / 5)],
      ['plainText', '\\'.repeat(MB)],
      ['plainText', `${' \t\n'.repeat(MB / 3)}x${' \n'.repeat(MB / 2)}y`],
      ['cardExcerpt', '&eacute;'.repeat(MB / 8)],
    ]);
    expect(results).to.deep.equal([
      'Title',
      '#'.repeat(MB),
      'x',
      '',
      'x',
      '&'.repeat(MB),
      '&#'.repeat(MB / 2),
      `&${'a'.repeat(MB)};`,
      '&'.repeat(MB / 5),
      '\\'.repeat(MB / 2),
      'x y',
      // Only the first EXCERPT_SCAN characters are read: 512 entities, more than a card shows.
      cut('é'.repeat(EXCERPT_SCAN / 8)),
    ]);
  });

  it('renders at most MAX_MARKDOWN characters of a 1 MB description, and says so', async () => {
    const [page] = (await offThread([['renderMarkdown', '['.repeat(MB)]])) as [string];
    expect(page).to.match(/^<p>\[+<\/p>\n<p class="cut">\(/);
    expect(page.match(/\[/g)).to.have.length(MAX_MARKDOWN);
    expect(page).to.contain(`(${(MB - MAX_MARKDOWN).toLocaleString('en-US')} more characters`);
  });
});

describe('ui text helpers', () => {
  it('cuts an excerpt by code points, and only reads the start of a long text', () => {
    expect(excerpt('short', 160)).to.equal('short');
    expect(excerpt('🙀'.repeat(200), 10)).to.equal(`${'🙀'.repeat(7)}...`);
    expect(excerpt('x'.repeat(MB), 10)).to.equal('xxxxxxx...');
    expect(excerpt('cut before', 160, true)).to.equal('cut before...');
    // A description cut in the middle of a surrogate pair keeps no half of it.
    const pairs = `${'a'.repeat(EXCERPT_SCAN - 1)}🙀🙀`;
    expect(cardExcerpt(pairs, EXCERPT_SCAN + 5)).to.equal(`${'a'.repeat(EXCERPT_SCAN - 1)}...`);
    expect(cardExcerpt(42)).to.equal('');
    expect(cardExcerpt({ toString: 1 })).to.equal('');
  });

  it('keeps the regular-expression semantics of link stripping', () => {
    const reference = (s: string) => s.replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1');
    for (const s of [
      '[a](b)',
      '![a](b)',
      '!![a](b)c',
      '[[a](b)',
      '[a]](b)',
      '[a] (b)',
      '[a](b',
      '[a](b)(c)[d](e)',
      'x[a\n b](c\nd)y',
      '[a](b)![c](d)',
      '](a)[b](c)',
      '[![alt](img)](link)',
    ])
      expect(stripLinks(s), s).to.equal(reference(s));
    expect(plainText('**X** is [a tool](https://x.example) for `y`.')).to.equal(
      'X is a tool for y.',
    );
  });

  it('bounds URLs and escapes 1 MB of markup characters', () => {
    expect(safeUrl(`https://example.com/${'a'.repeat(MB)}`)).to.equal(undefined);
    expect(escapeHtml('<'.repeat(MB))).to.equal('&lt;'.repeat(MB));
    expect(seg('a\ud800b')).to.equal('a%EF%BF%BDb');
    expect(seg({ toString: 1 })).to.equal('');
  });
});

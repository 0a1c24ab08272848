import { expect } from 'chai';
import type { ChannelBlob, PackageBlob } from '../../client/index.js';
import type { PackageView } from '../../client/index.js';
import { cardOf } from './data.js';
import { escapeHtml, html, safeUrl } from './html.js';
import { excerpt, plainText, renderMarkdown } from './markdown.js';
import { decodeIcon } from './icon.js';
import { MAX_GRAPH_ENTRIES, layout, packagePage, packagesPage, providesPage } from './pages.js';
import { packageFacts } from '../../client/index.js';

const HOSTILE = `<script>alert(1)</script>"'><img src=x onerror=alert(2)>&`;

/** No element or attribute from the hostile string made it into the markup. */
function expectInert(out: string): void {
  expect(out).not.to.match(/<script>alert/);
  expect(out).not.to.match(/<img src=x/);
  expect(out).not.to.match(/onerror=alert\(2\)>/);
  expect(out).not.to.match(/href="\s*javascript:/i);
}

describe('ui html escaping', () => {
  it('escapes text and attribute values', () => {
    expect(escapeHtml(HOSTILE)).to.equal(
      '&lt;script&gt;alert(1)&lt;/script&gt;&quot;&#39;&gt;&lt;img src=x onerror=alert(2)&gt;&amp;',
    );
    expect(html`<a title="${HOSTILE}">${HOSTILE}</a>`.value).to.equal(
      `<a title="${escapeHtml(HOSTILE)}">${escapeHtml(HOSTILE)}</a>`,
    );
  });

  it('allows only http(s) and mailto URLs, however javascript: is spelled', () => {
    for (const u of [
      'javascript:alert(1)',
      'JaVaScRiPt:alert(1)',
      ' \tjava\nscript:alert(1)',
      'data:text/html,<script>alert(1)</script>',
      'vbscript:msgbox',
      '//evil.example/x',
    ])
      expect(safeUrl(u), u).to.equal(undefined);
    expect(safeUrl('https://example.com/a?b=<c>')).to.equal('https://example.com/a?b=%3Cc%3E');
    expect(safeUrl('mailto:a@example.com')).to.equal('mailto:a@example.com');
  });

  it('renders Markdown without raw HTML, script links or images', () => {
    const out = renderMarkdown(
      `# Title\n\n${HOSTILE}\n\n[click](javascript:alert(1)) [x](JAVASCRIPT:alert(1)) <a href="javascript:alert(3)">a</a>\n\n![img](https://tracker.example/p.png)\n\n[ok](https://example.com)\n\n[data](data:image/png;base64,AAAA) [ftp](ftp://example.com/x)\n\n<iframe src="https://evil.example"></iframe>`,
    );
    expectInert(out);
    expect(out).not.to.contain('<iframe');
    expect(out).not.to.match(/href="(data|ftp):/);
    expect(out).not.to.contain('<img');
    expect(out).to.contain('<h1>Title</h1>');
    expect(out).to.contain(
      '<a href="https://example.com" rel="noopener noreferrer nofollow">ok</a>',
    );
  });

  it('escapes hostile package names, descriptions and providers on the packages page', async () => {
    const pkg: PackageBlob = {
      schema: 'olm.package',
      name: HOSTILE,
      defaultChannel: HOSTILE,
      description: HOSTILE,
    };
    const channel: ChannelBlob = {
      schema: 'olm.channel',
      package: HOSTILE,
      name: HOSTILE,
      entries: [{ name: `${HOSTILE}.v1` }],
    };
    const row = {
      ...cardOf({
        catalog: HOSTILE,
        contentHash: 'abc',
        pkg,
        channels: 1,
        deprecated: HOSTILE,
        facts: packageFacts(pkg, [channel], []),
      })!,
      hasIcon: true,
    };
    const list = { cards: [row], failed: [{ catalog: HOSTILE, message: HOSTILE }] };
    const out = layout(HOSTILE, await packagesPage(list, { search: HOSTILE }, undefined), HOSTILE);
    expectInert(out);
    const seg = escapeHtml(encodeURIComponent(HOSTILE));
    expect(out).to.contain(`/package/${seg}/${seg}`);
  });

  it('escapes hostile content on the package page (facts, links, description, graph)', () => {
    const view: PackageView = {
      catalog: HOSTILE,
      contentHash: 'abc',
      pkg: { schema: 'olm.package', name: HOSTILE, defaultChannel: 'stable', description: '' },
      channels: [
        {
          schema: 'olm.channel',
          package: HOSTILE,
          name: 'stable',
          entries: [
            { name: `${HOSTILE}.v1` },
            { name: `${HOSTILE}.v2`, replaces: `${HOSTILE}.v1`, skipRange: HOSTILE },
          ],
        },
      ],
      bundles: [
        {
          schema: 'olm.bundle',
          package: HOSTILE,
          name: `${HOSTILE}.v2`,
          image: HOSTILE,
          properties: [
            { type: 'olm.package', value: { packageName: HOSTILE, version: '2.0.0' } },
            {
              type: 'olm.csv.metadata',
              value: {
                displayName: HOSTILE,
                description: `${HOSTILE}\n\n[x](javascript:alert(1))`,
                provider: { name: HOSTILE, url: 'javascript:alert(1)' },
                links: [{ name: HOSTILE, url: 'javascript:alert(1)' }],
                keywords: [HOSTILE],
              },
            },
            { type: 'olm.gvk', value: { group: HOSTILE, version: 'v1', kind: HOSTILE } },
          ],
        },
      ],
    };
    const out = layout(HOSTILE, packagePage(view), 'r');
    expectInert(out);
    expect(out).to.match(/<svg\s+class="graph"/);
  });

  it('draws no upgrade graph whose work grows past its bounds (hostile channels)', () => {
    const channel = (name: string, n: number, skipRange?: (i: number) => string) => ({
      schema: 'olm.channel' as const,
      package: 'p',
      name,
      entries: Array.from({ length: n }, (_, i) => ({
        name: `p.v${i}`,
        ...(i > 0 && { replaces: `p.v${i - 1}` }),
        ...(skipRange && { skipRange: skipRange(i) }),
      })),
    });
    const bundles = Array.from({ length: MAX_GRAPH_ENTRIES + 1 }, (_, i) => ({
      schema: 'olm.bundle' as const,
      package: 'p',
      name: `p.v${i}`,
      image: `example.com/p:${i}`,
      properties: [{ type: 'olm.package', value: { packageName: 'p', version: `${i}.0.0` } }],
    }));
    const view: PackageView = {
      catalog: 'c',
      contentHash: 'abc',
      pkg: { schema: 'olm.package', name: 'p', defaultChannel: 'small' },
      channels: [
        channel('small', 3, () => '>=0.0.0'),
        channel('long', MAX_GRAPH_ENTRIES + 1),
        channel('ranges', 600, () => '>=0.0.0'),
        channel('edges', 300, (i) => `<${i}.0.0`),
      ],
      bundles,
    };
    const out = packagePage(view).value;
    expect(out.match(/<svg\s+class="graph"/g)).to.have.length(1);
    expect(out).to.contain('Graph not drawn: the channel has 1,001 entries');
    expect(out).to.contain('Graph not drawn: its skipRanges need 360,000 version checks');
    // 44,850 skipRange edges (each entry from every older one) and 299 replaces.
    expect(out).to.contain('Graph not drawn: it has 45,149 upgrade edges');
    // The channels table still has every channel's head.
    expect(out).to.contain('<td class="head">p.v1000</td>');
  });

  it('escapes hostile input and bundle names on the provides page', () => {
    const out = layout(
      'p',
      providesPage(HOSTILE, [
        {
          catalog: HOSTILE,
          bundle: {
            schema: 'olm.bundle',
            package: HOSTILE,
            name: HOSTILE,
            image: HOSTILE,
            properties: [],
          },
        },
      ]),
      'r',
    );
    expectInert(out);
  });

  it('shows descriptions on cards as plain text', () => {
    expect(plainText('## About X\n\n**X** is [a tool](https://x.example) for `y`.')).to.equal(
      'About X X is a tool for y.',
    );
    expect(plainText('Cats &#x1F640; &#60;b&#62; caf&eacute; \\*')).to.equal('Cats 🙀 <b> café *');
    expect(excerpt(plainText('a'.repeat(200)), 160)).to.have.length(160);
    expect(excerpt(plainText('a'.repeat(200)), 160)).to.match(/^a{157}\.\.\.$/);
  });

  it("shows a description's HTML entities as characters on the cards and the package page", async () => {
    // The start of a real description (cat-facts-operator, community-operators v4.20), and
    // named entities besides the numeric one.
    const description =
      '### Cat Facts? &#x1F640;\n\n* **Do you like to have fun?**\n\nCaf&eacute; &amp; cr&egrave;me';
    const pkg: PackageBlob = {
      schema: 'olm.package',
      name: 'cat-facts-operator',
      defaultChannel: 'alpha',
      description,
    };
    const card = cardOf({
      catalog: 'community',
      contentHash: 'abc',
      pkg,
      channels: 0,
      facts: packageFacts(pkg, [], []),
    })!;
    const cards = (await packagesPage({ cards: [card], failed: [] }, {}, undefined)).value;
    const view = { catalog: 'community', contentHash: 'abc', pkg, channels: [], bundles: [] };
    const page = packagePage(view).value;
    for (const [where, out] of [
      ['card', cards],
      ['package page', page],
    ]) {
      expect(out, where).to.contain('Cat Facts? 🙀');
      // The & is markup-escaped once (&amp;), so the browser shows "&".
      expect(out, where).to.contain('Café &amp; crème');
      expect(out, where).not.to.match(/&(amp;)?#x1F640;|&(amp;)?eacute;|&amp;amp;/);
    }
  });

  it('serves icons only when the bytes are what the media type says', () => {
    const png = Buffer.from([137, 80, 78, 71, 13, 10, 26, 10, 0, 0]).toString('base64');
    expect(decodeIcon({ base64data: png, mediatype: 'image/png' })?.type).to.equal('image/png');
    expect(decodeIcon({ base64data: png, mediatype: 'text/html' })).to.equal(undefined);
    const html64 = Buffer.from('<script>alert(1)</script>').toString('base64');
    expect(decodeIcon({ base64data: html64, mediatype: 'image/png' })).to.equal(undefined);
    expect(decodeIcon({ base64data: html64, mediatype: 'image/svg+xml' })).to.equal(undefined);
    expect(decodeIcon({ base64data: 42, mediatype: 'image/png' })).to.equal(undefined);
  });
});

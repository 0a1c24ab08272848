// The console over HTTP, on loopback, with catalogs held in memory (test/support/ui-catalogs.ts):
// hostile catalogs (values of the wrong JSON type) never take the other catalogs' pages down,
// malformed URLs answer 400, every response keeps to its origin and cross-site requests are
// refused; bound to an address other than loopback, the console warns and asks for its token.
import { expect } from 'chai';
import http from 'node:http';
import type { Blobs, FakeCatalogs } from '../../../test/support/ui-catalogs.js';
import { fakeCatalogs, packageBlobs } from '../../../test/support/ui-catalogs.js';
import { runUi } from './command.js';
import { UiData } from './data.js';
import { isLoopback, startUiServer } from './server.js';

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** GET (or `method`) `path` as written, from the server at `base`, with these headers. */
function request(
  base: string,
  path: string,
  headers: Record<string, string> = {},
  method = 'GET',
): Promise<Answer> {
  const u = new URL(base);
  return new Promise((resolve, reject) => {
    http
      .request(
        { host: '127.0.0.1', port: u.port, path, method, headers: { host: u.host, ...headers } },
        (res) => {
          let body = '';
          res.setEncoding('utf8');
          res.on('data', (c: string) => (body += c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
        },
      )
      .on('error', reject)
      .end();
  });
}

const PNG = Buffer.from([137, 80, 78, 71, 13, 10, 26, 10, 0, 0]).toString('base64');
/** An object whose String() throws (`Cannot convert object to primitive value`). */
const NO_STRING = { toString: 1 };
const STACK = /\n\s+at /;

/**
 * The catalogs: `good`; `odd`, whose values of the wrong type the console reads itself; `bad`,
 * whose deprecation message and feature annotation are objects (the client library reads them
 * as absent); `broken`, which the client cannot read at all (its rows cannot be built).
 */
function hostileCatalogs(): Record<string, Blobs> {
  const oddA = packageBlobs('odd-a', {
    pkg: { description: 42 },
    csv: {
      displayName: ['an', 'array'],
      description: { text: 'not a string' },
      provider: { name: NO_STRING, url: 7 },
      keywords: [NO_STRING, 'kept'],
      maintainers: [{ name: NO_STRING, email: ['x'] }],
      links: [{ name: 5, url: NO_STRING }],
      annotations: { categories: 7, capabilities: NO_STRING },
    },
  });
  oddA[2]!.image = NO_STRING;
  return {
    good: [
      ...packageBlobs('good-a', { pkg: { icon: { base64data: PNG, mediatype: 'image/png' } } }),
      ...packageBlobs('good-b'),
    ],
    odd: [
      ...oddA,
      ...packageBlobs('odd-b', {
        pkg: { defaultChannel: NO_STRING, icon: { base64data: 5, mediatype: [] } },
      }),
      { schema: 'olm.package', name: ['an', 'array'], defaultChannel: 'stable' },
    ],
    bad: [
      ...packageBlobs('bad-a', {
        csv: { annotations: { 'features.operators.openshift.io/disconnected': NO_STRING } },
      }),
      {
        schema: 'olm.deprecations',
        package: 'bad-a',
        entries: [{ reference: { schema: 'olm.package' }, message: NO_STRING }],
      },
    ],
    broken: packageBlobs('broken-a'),
  };
}

const BROKEN = { broken: 'cannot list catalog broken: the apiserver answered 500' };

const names = (body: string) =>
  [...body.matchAll(/<li\s+class="package[^"]*"\s+data-name="([^"]*)"/g)].map((m) => m[1]).sort();

describe('ui server with hostile catalogs', () => {
  let fake: FakeCatalogs;
  let server: Awaited<ReturnType<typeof startUiServer>>;
  before(async () => {
    fake = fakeCatalogs(hostileCatalogs(), BROKEN);
    server = await startUiServer({ data: new UiData(fake.client), host: '127.0.0.1', port: 0 });
  });
  after(() => server?.close());

  it('lists every catalog but the one whose rows fail, and names that one on the page', async () => {
    const res = await request(server.url, '/packages');
    expect(res.status).to.equal(200);
    expect(names(res.body)).to.deep.equal(['bad-a', 'good-a', 'good-b', 'odd-a', 'odd-b']);
    expect(res.body).to.match(/data-catalog="broken"[^>]*>\s*Catalog broken is left out/);
    expect(res.body).to.contain('the apiserver answered 500');
    expect(res.body).not.to.match(STACK);
    expect(res.body).not.to.contain('[object Object]');
    // odd-a's values of the wrong type are absent: its name for the display name, no excerpt.
    const card = /<li[^>]*data-name="odd-a"[\s\S]*?<\/li>/.exec(res.body)![0];
    expect(card).to.match(/<h2><a href="\/package\/odd\/odd-a">odd-a<\/a><\/h2>/);
    expect(card).to.match(/<p class="desc"><\/p>/);
    expect(res.body).to.contain('<span id="count">5</span> of 5 packages');
  });

  it('answers ?catalog= from that catalog alone, never reading the others', async () => {
    const fresh = fakeCatalogs(hostileCatalogs(), BROKEN);
    const alone = await startUiServer({
      data: new UiData(fresh.client),
      host: '127.0.0.1',
      port: 0,
    });
    try {
      const good = await request(alone.url, '/packages?catalog=good');
      expect(good.status).to.equal(200);
      expect(names(good.body)).to.deep.equal(['good-a', 'good-b']);
      expect(good.body).not.to.contain('left out');
      // The catalog's packages, channels and deprecations, then its heads: nothing of the others.
      expect(fresh.queries.map((q) => q.catalog)).to.deep.equal(['good', 'good']);
    } finally {
      await alone.close();
    }
    const broken = await request(server.url, '/packages?catalog=broken');
    expect(broken.status).to.equal(200);
    expect(names(broken.body)).to.deep.equal([]);
    expect(broken.body).to.contain('Catalog broken is left out');
    expect(broken.body).not.to.match(STACK);
  });

  it('shows package pages with values of the wrong type absent; a failing one says why, and only it', async () => {
    const good = await request(server.url, '/package/good/good-a');
    expect(good.status).to.equal(200);
    expect(good.body).to.contain('The good-a');
    const odd = await request(server.url, '/package/odd/odd-a');
    expect(odd.status).to.equal(200);
    expect(odd.body).to.match(/<h1>\s*odd-a\s*<\/h1>/);
    expect(odd.body).to.contain('kept');
    expect(odd.body).to.match(/<td class="image"><\/td>/);
    expect(odd.body).not.to.contain('[object Object]');
    expect((await request(server.url, '/package/odd/odd-b')).status).to.equal(200);
    // Objects where strings belong: absent (the client library reads defensively).
    const bad = await request(server.url, '/package/bad/bad-a');
    expect(bad.status).to.equal(200);
    expect(bad.body).not.to.contain('[object Object]');
    const broken = await request(server.url, '/package/broken/broken-a');
    expect(broken.status).to.equal(500);
    expect(broken.body).to.contain('the apiserver answered 500');
    expect(broken.body).not.to.match(STACK);
    expect((await request(server.url, '/package/good/good-b')).status).to.equal(200);
  });

  it('answers who provides an API from the catalogs it can read, naming the one it cannot', async () => {
    const res = await request(server.url, '/provides?gvk=example.com/v1/Widget');
    expect(res.status).to.equal(200);
    expect(res.body).to.match(/data-catalog="broken"[^>]*>\s*Catalog broken is left out/);
    expect(res.body).to.contain('the apiserver answered 500');
    expect(res.body).to.contain('No bundle provides example.com/v1/Widget.');
    expect(res.body).not.to.match(STACK);
  });

  it('serves icons of good packages and none of a wrong-typed one', async () => {
    expect((await request(server.url, '/icon/good/good-a')).status).to.equal(200);
    expect((await request(server.url, '/icon/odd/odd-b')).status).to.equal(404);
    expect((await request(server.url, '/icon/broken/broken-a')).status).to.equal(404);
  });
});

describe('ui server requests', () => {
  let server: Awaited<ReturnType<typeof startUiServer>>;
  before(async () => {
    const { client } = fakeCatalogs({
      good: packageBlobs('good-a', { pkg: { icon: { base64data: PNG, mediatype: 'image/png' } } }),
    });
    server = await startUiServer({ data: new UiData(client), host: '127.0.0.1', port: 0 });
  });
  after(() => server?.close());

  it('answers a malformed percent-escape in the URL with 400 and a plain message', async () => {
    for (const path of ['/packages/%E0%A4%A', '/package/%E0%A4%A/x', '/icon/good/%ZZ', '/%']) {
      const res = await request(server.url, path);
      expect(res.status, path).to.equal(400);
      expect(res.headers['content-type'], path).to.equal('text/plain');
      expect(res.body, path).to.equal('bad request: the URL cannot be decoded\n');
    }
    expect((await request(server.url, '/packages')).status).to.equal(200);
  });

  it('sends Cross-Origin-Resource-Policy: same-origin and the CSP on every response', async () => {
    const answers = await Promise.all([
      request(server.url, '/'),
      request(server.url, '/packages'),
      request(server.url, '/package/good/good-a'),
      request(server.url, '/icon/good/good-a'),
      request(server.url, '/icon/good/none'),
      request(server.url, '/static/ui.js'),
      request(server.url, '/api/revision'),
      request(server.url, '/nothing-here'),
      request(server.url, '/packages/%E0%A4%A'),
      request(server.url, '/', {}, 'POST'),
      request(server.url, '/', { host: 'evil.example' }),
      request(server.url, '/', { 'sec-fetch-site': 'cross-site' }),
    ]);
    expect(answers.map((a) => a.status)).to.deep.equal([
      200, 200, 200, 200, 404, 200, 200, 404, 400, 405, 421, 403,
    ]);
    for (const a of answers) {
      expect(a.headers['cross-origin-resource-policy']).to.equal('same-origin');
      expect(a.headers['content-security-policy']).to.contain("default-src 'none'");
    }
  });

  it('refuses cross-site requests of browsers, and answers its own pages and the user', async () => {
    for (const site of ['cross-site', 'same-site']) {
      const res = await request(server.url, '/packages', { 'sec-fetch-site': site });
      expect(res.status, site).to.equal(403);
      expect(res.body, site).to.equal('forbidden: a request from another site\n');
    }
    for (const site of ['same-origin', 'none'])
      expect(
        (await request(server.url, '/packages', { 'sec-fetch-site': site })).status,
        site,
      ).to.equal(200);
    expect((await request(server.url, '/packages')).status).to.equal(200);
  });
});

describe('kubectl catalog ui on an address other than loopback', function () {
  this.timeout(20_000);

  /** Runs `ui` with these flags until `stop()`: its output and URL. */
  async function run(args: string[]) {
    const out: string[] = [];
    const err: string[] = [];
    let stop = () => {};
    const { client } = fakeCatalogs({ good: packageBlobs('good-a') });
    const code = runUi(['--no-open', ...args], {
      stdout: (s) => out.push(s),
      stderr: (s) => err.push(s),
      client: () => client,
      stopped: new Promise((r) => (stop = () => r(undefined))),
    });
    while (!out.join('').includes('Serving') && err.length === 0)
      await new Promise((r) => setImmediate(r));
    const url = /(http:\/\/\S+) /.exec(out.join(''))?.[1];
    return { url: url!, out, err, stop: () => (stop(), code) };
  }

  it('tells the loopback addresses', () => {
    for (const a of ['127.0.0.1', '127.1.2.3', '::1', '::ffff:127.0.0.1'])
      expect(isLoopback(a), a).to.equal(true);
    for (const a of ['0.0.0.0', '::', '10.0.0.1', '192.168.1.5', '::ffff:10.0.0.1', 'fe80::1'])
      expect(isLoopback(a), a).to.equal(false);
  });

  it('warns, and asks every request for the token of the URL it prints', async () => {
    const ui = await run(['--address', '0.0.0.0:0']);
    try {
      expect(ui.err.join('')).to.match(
        /^warning: the console listens on 0\.0\.0\.0, not on loopback/,
      );
      const url = new URL(ui.url);
      const token = url.searchParams.get('token')!;
      expect(token).to.match(/^[A-Za-z0-9_-]{43}$/);
      const base = `http://${url.host}/`;

      const none = await request(base, '/packages');
      expect(none.status).to.equal(401);
      expect(none.body).to.contain('open the URL with ?token=');
      expect(none.headers['cross-origin-resource-policy']).to.equal('same-origin');
      expect((await request(base, '/packages?token=wrong')).status).to.equal(403);
      expect((await request(base, '/static/ui.css')).status).to.equal(401);

      const signIn = await request(base, `/packages?catalog=good&token=${token}`);
      expect(signIn.status).to.equal(303);
      expect(signIn.headers.location).to.equal('/packages?catalog=good');
      const cookie = signIn.headers['set-cookie']![0]!;
      expect(cookie)
        .to.match(/HttpOnly/)
        .and.to.match(/SameSite=Strict/)
        .and.to.match(/Path=\//);
      const pair = cookie.split(';')[0]!;
      expect(pair).to.equal(`catalog-ui-${url.port}=${token}`);
      const page = await request(base, '/packages?catalog=good', { cookie: pair });
      expect(page.status).to.equal(200);
      expect(names(page.body)).to.deep.equal(['good-a']);
      const stale = await request(base, '/packages', { cookie: `catalog-ui-${url.port}=old` });
      expect(stale.status).to.equal(403);
      // Never a redirect to another site, whatever the path.
      const odd = await request(base, `/.//evil.example/?token=${token}`);
      expect(odd.headers.location).to.equal('/evil.example/');
      // The token does not open the door to another site's requests.
      const cross = await request(base, `/?token=${token}`, { 'sec-fetch-site': 'cross-site' });
      expect(cross.status).to.equal(403);
    } finally {
      expect(await ui.stop()).to.equal(0);
    }
  });

  it('on loopback, prints no warning and asks for no token', async () => {
    const ui = await run([]);
    try {
      expect(ui.err).to.deep.equal([]);
      expect(ui.url).to.match(/^http:\/\/127\.0\.0\.1:\d+\/$/);
      expect((await request(ui.url, '/packages')).status).to.equal(200);
    } finally {
      expect(await ui.stop()).to.equal(0);
    }
  });
});

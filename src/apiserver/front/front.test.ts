// The front over real TLS on 127.0.0.1, with certificates made for the test: a client presenting
// the front-proxy certificate is authenticated by its headers and authorized by a review; one
// with a certificate of another CA, one with a CN not allowed, and one without a certificate get
// 401 whatever headers they send; a denied user gets the apiserver's 403; a review that cannot be
// made refuses; the probes answer without a certificate; a new CA (the ConfigMap changed) counts.
import { expect } from 'chai';
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { pollUntil } from '../../../test/support/poll.js';
import { makeTestPki } from '../../../test/support/test-pki.js';
import type {
  AccessRequest,
  AuthorizationDecision,
  ReviewedUser,
} from '../../controllers/runtime/delegated-access.js';
import type { ServingPair } from '../../server/index.js';
import type { RequestInfo, ServedApi, UserInfo } from '../ports.js';
import type { ApiFront, ApiFrontOptions } from './front.js';
import { startApiFront } from './front.js';
import type { RequestHeaderConfig } from './requestheader.js';
import { RequestHeaderAuthenticator } from './requestheader.js';

const G = 'content.olm.operatorframework.io';

interface Pki {
  ca: string;
  cert(name: string): Promise<{ cert: Buffer; key: Buffer }>;
}

async function pki(dir: string, clients: string[]): Promise<Pki> {
  await makeTestPki(dir, clients);
  const read = (f: string) => readFile(path.join(dir, f));
  return {
    ca: (await read('ca.crt')).toString(),
    cert: async (name) => ({ cert: await read(`${name}.crt`), key: await read(`${name}.key`) }),
  };
}

/** Records what reaches it and answers 200 with the user and request it was given. */
class RecordingApi implements ServedApi {
  readonly seen: Array<{ info: RequestInfo; user: UserInfo; headers: string[] }> = [];
  closed = false;
  handle(req: IncomingMessage, res: ServerResponse, info: RequestInfo, user: UserInfo) {
    this.seen.push({ info, user, headers: Object.keys(req.headers) });
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ user: user.name }));
    return Promise.resolve();
  }
  close() {
    this.closed = true;
    return Promise.resolve();
  }
}

/**
 * Answers each request with a stream of lines, as a watch does; close() ends each stream with a
 * last line on a later turn of the event loop (as a watch sends its last bookmark) and resolves
 * once every response has finished.
 */
class StreamingApi implements ServedApi {
  private readonly open = new Set<ServerResponse>();
  handle(_req: IncomingMessage, res: ServerResponse) {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.write('{"type":"ADDED"}\n');
    this.open.add(res);
    return Promise.resolve();
  }
  async close() {
    await new Promise((resolve) => setImmediate(resolve));
    await Promise.all(
      [...this.open].map(
        (res) => new Promise<void>((resolve) => res.end('{"type":"BOOKMARK"}\n', () => resolve())),
      ),
    );
  }
}

class FakeAuthorizer {
  readonly asked: Array<{ user: ReviewedUser; request: AccessRequest }> = [];
  answer: AuthorizationDecision = { allowed: true };
  authorize(user: ReviewedUser, request: AccessRequest): Promise<AuthorizationDecision> {
    this.asked.push({ user, request });
    return Promise.resolve(this.answer);
  }
}

interface Answer {
  status: number;
  body: string;
}

describe('apiserver/front: the HTTPS listener', function () {
  this.timeout(60_000);
  let dir: string;
  let main: Pki;
  let other: Pki;
  let front: ApiFront;
  let api: RecordingApi;
  let authorizer: FakeAuthorizer;
  let config: RequestHeaderConfig;
  let serving: ServingPair;

  before(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'apifront-'));
    await mkdir(path.join(dir, 'main'));
    await mkdir(path.join(dir, 'other'));
    main = await pki(path.join(dir, 'main'), ['front-proxy-client', 'someone-else']);
    other = await pki(path.join(dir, 'other'), ['front-proxy-client']);
    const server = await main.cert('server');
    serving = {
      ...server,
      serial: '1',
      notAfter: new Date(Date.now() + 86_400_000),
      fingerprint: 'x',
    };
    config = {
      clientCA: main.ca,
      allowedNames: ['front-proxy-client'],
      usernameHeaders: ['X-Remote-User'],
      uidHeaders: ['X-Remote-Uid'],
      groupHeaders: ['X-Remote-Group'],
      extraHeaderPrefixes: ['X-Remote-Extra-'],
    };
  });

  after(() => rm(dir, { recursive: true, force: true }));

  /** A front on a free port of 127.0.0.1, its authenticator set to `config`. */
  function start(
    options: Pick<ApiFrontOptions, 'api'> & Partial<ApiFrontOptions>,
  ): Promise<ApiFront> {
    const authenticator = new RequestHeaderAuthenticator();
    authenticator.setConfig(config);
    return startApiFront({
      listen: { host: '127.0.0.1', port: 0 },
      tls: serving,
      authenticator,
      authorizer,
      ...options,
    });
  }

  beforeEach(async () => {
    api = new RecordingApi();
    authorizer = new FakeAuthorizer();
    front = await start({ api });
  });

  afterEach(() => front.close());

  /** A request as the front proxy sends it, with a client certificate or none. */
  function request(
    urlPath: string,
    client: { cert: Buffer; key: Buffer } | undefined,
    headers: Record<string, string | string[]> = {},
  ): Promise<Answer> {
    return new Promise((resolve, reject) => {
      const req = https.request(
        `${front.url}${urlPath}`,
        { ca: main.ca, ...client, headers, agent: false },
        (res) => {
          let body = '';
          res.setEncoding('utf8');
          res.on('data', (c: string) => (body += c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        },
      );
      req.on('error', reject);
      req.end();
    });
  }

  const userHeaders = {
    'X-Remote-User': 'alice',
    'X-Remote-Uid': 'u-1',
    'X-Remote-Group': ['devs', 'system:authenticated'],
    'X-Remote-Extra-Scopes': ['a', 'b'],
    'X-Remote-Extra-Acme.com%2Fproject': 'p',
  };
  const list = `/apis/${G}/v1/catalogmetadata?labelSelector=package%3Dfoo`;

  it('authenticates the front proxy by its certificate, the user by its headers, and authorizes', async () => {
    const answer = await request(list, await main.cert('front-proxy-client'), userHeaders);
    expect(answer).to.deep.equal({ status: 200, body: '{"user":"alice"}' });
    const user = {
      name: 'alice',
      uid: 'u-1',
      groups: ['devs', 'system:authenticated'],
      extra: { scopes: ['a', 'b'], 'acme.com/project': ['p'] },
    };
    expect(api.seen[0]?.user).to.deep.equal(user);
    expect(api.seen[0]?.info).to.deep.include({ verb: 'list', resource: 'catalogmetadata' });
    // The user headers do not reach the handlers.
    expect(api.seen[0]?.headers.filter((h) => h.startsWith('x-remote'))).to.deep.equal([]);
    expect(authorizer.asked).to.deep.equal([
      {
        user: { username: 'alice', uid: 'u-1', groups: user.groups, extra: user.extra },
        request: { verb: 'list', group: G, version: 'v1', resource: 'catalogmetadata' },
      },
    ]);
  });

  const unauthorized = {
    status: 401,
    body: JSON.stringify({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'Unauthorized',
      reason: 'Unauthorized',
      code: 401,
    }),
  };

  it('refuses with 401, headers ignored, a client without a certificate', async () => {
    expect(await request(list, undefined, userHeaders)).to.deep.equal(unauthorized);
    expect(api.seen).to.deep.equal([]);
    expect(authorizer.asked).to.deep.equal([]);
  });

  it('refuses with 401 a certificate of another CA, even with the allowed CN', async () => {
    expect(await request(list, await other.cert('front-proxy-client'), userHeaders)).to.deep.equal(
      unauthorized,
    );
    expect(api.seen).to.deep.equal([]);
  });

  it('refuses with 401 a certificate of the CA whose CN is not an allowed name', async () => {
    expect(await request(list, await main.cert('someone-else'), userHeaders)).to.deep.equal(
      unauthorized,
    );
  });

  it('refuses with 401 the front proxy naming no user', async () => {
    expect(await request(list, await main.cert('front-proxy-client'), {})).to.deep.equal(
      unauthorized,
    );
  });

  it('answers 403 worded as the apiserver words it when the review denies', async () => {
    authorizer.answer = { allowed: false, status: 403 };
    const answer = await request(list, await main.cert('front-proxy-client'), userHeaders);
    expect(answer.status).to.equal(403);
    expect(JSON.parse(answer.body)).to.deep.equal({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: `catalogmetadata.${G} is forbidden: User "alice" cannot list resource "catalogmetadata" in API group "${G}" at the cluster scope`,
      reason: 'Forbidden',
      details: { group: G, kind: 'catalogmetadata' },
      code: 403,
    });
    const get = await request(
      `/apis/${G}/v1/catalogmetadata/x`,
      await main.cert('front-proxy-client'),
      userHeaders,
    );
    expect(JSON.parse(get.body)).to.deep.include({
      message: `catalogmetadata.${G} "x" is forbidden: User "alice" cannot get resource "catalogmetadata" in API group "${G}" at the cluster scope`,
    });
    expect(api.seen).to.deep.equal([]);
  });

  it('refuses with 503 or 500 when the review cannot be made', async () => {
    for (const status of [503, 500] as const) {
      authorizer.answer = { allowed: false, status, reason: 'connect ECONNREFUSED' };
      const answer = await request(list, await main.cert('front-proxy-client'), userHeaders);
      expect(answer.status).to.equal(status);
      expect(JSON.parse(answer.body)).to.deep.include({ code: status, status: 'Failure' });
      expect(answer.body).not.to.contain('ECONNREFUSED');
    }
    expect(api.seen).to.deep.equal([]);
  });

  it('answers the probes without a certificate or a review', async () => {
    for (const p of ['/healthz', '/livez', '/readyz'])
      expect(await request(p, undefined)).to.deep.equal({ status: 200, body: 'ok' });
    expect(authorizer.asked).to.deep.equal([]);
  });

  it('authenticates by the new CA once the settings change, and no longer by the old', async () => {
    front.setRequestHeaderConfig({ ...config, clientCA: other.ca });
    expect(await request(list, await other.cert('front-proxy-client'), userHeaders)).to.include({
      status: 200,
    });
    expect(await request(list, await main.cert('front-proxy-client'), userHeaders)).to.deep.equal(
      unauthorized,
    );
    front.setRequestHeaderConfig(undefined);
    expect(await request(list, await other.cert('front-proxy-client'), userHeaders)).to.deep.equal(
      unauthorized,
    );
  });

  it('answers a retryable 503 and /readyz 503 until its catalogs are listed', async () => {
    await front.close();
    let ready = false;
    front = await start({ api, ready: () => ready });
    const fp = await main.cert('front-proxy-client');
    const early = await request(list, fp, userHeaders);
    expect(early.status).to.equal(503);
    expect(JSON.parse(early.body)).to.deep.include({
      reason: 'ServiceUnavailable',
      message: 'the served API is starting: its ClusterCatalogs are not listed yet; retry',
    });
    expect((await request('/readyz', undefined)).status).to.equal(503);
    expect((await request('/healthz', undefined)).status).to.equal(200);
    // Still authenticated first: no user, no hint of the state.
    expect((await request(list, undefined)).status).to.equal(401);
    expect(api.seen).to.deep.equal([]);
    ready = true;
    expect((await request(list, fp, userHeaders)).status).to.equal(200);
    expect(await request('/readyz', undefined)).to.deep.equal({ status: 200, body: 'ok' });
  });

  it('lets open streams end their responses before it closes the connections', async () => {
    const streaming = await start({ api: new StreamingApi() });
    const fp = await main.cert('front-proxy-client');
    let body = '';
    const done = new Promise<{ complete: boolean }>((resolve, reject) => {
      const req = https.request(
        `${streaming.url}/apis/${G}/v1/catalogmetadata?watch=true`,
        { ca: main.ca, ...fp, headers: userHeaders, agent: false },
        (res) => {
          res.setEncoding('utf8');
          res.on('data', (c: string) => (body += c));
          res.on('close', () => resolve({ complete: res.complete }));
        },
      );
      req.on('error', reject);
      req.end();
    });
    await pollUntil(async () => body.includes('ADDED'), {
      timeoutMs: 10_000,
      intervalMs: 10,
      what: 'the first line of the stream',
    });
    await streaming.close();
    // Cut mid-stream, a client-go watch through the aggregator gets an ERROR event and relists.
    expect(await done).to.deep.equal({ complete: true });
    expect(body).to.equal('{"type":"ADDED"}\n{"type":"BOOKMARK"}\n');
  });

  it('ends the served API on close', async () => {
    await front.close();
    expect(api.closed).to.equal(true);
    front = await start({ api, authenticator: new RequestHeaderAuthenticator() });
  });
});

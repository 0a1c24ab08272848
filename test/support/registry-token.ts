// A token server of the test's own for distribution's token auth: issues ES256 JWTs signed with a
// fresh self-signed certificate (passed to the registry as its rootcertbundle, and sent in the
// JWT's x5c header), for the credentials it was given. Counts token requests per scope.
import { execFileSync } from 'node:child_process';
import { createPrivateKey, randomBytes, sign, X509Certificate } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort } from './ports.js';

export interface TokenServer {
  realm: string;
  service: string;
  issuer: string;
  rootCertBundle: string;
  /** Token requests served, by requested scope. */
  requests: Map<string, number>;
  close(): Promise<void>;
}

const b64url = (b: Buffer | string) => Buffer.from(b).toString('base64url');

export async function startTokenServer(creds: {
  username: string;
  password: string;
}): Promise<TokenServer> {
  const dir = await mkdtemp(path.join(tmpdir(), 'catalogd-test-token-'));
  const keyFile = path.join(dir, 'key.pem');
  const certFile = path.join(dir, 'cert.pem');
  execFileSync('openssl', ['ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', keyFile]);
  execFileSync('openssl', [
    'req',
    '-new',
    '-x509',
    '-key',
    keyFile,
    '-out',
    certFile,
    '-days',
    '2',
    '-subj',
    '/CN=catalogd-test-token',
  ]);
  const key = createPrivateKey(await readFile(keyFile));
  const certDer = new X509Certificate(await readFile(certFile)).raw;
  const service = 'catalogd-test-registry';
  const issuer = 'catalogd-test-issuer';
  const requests = new Map<string, number>();
  const expected = `Basic ${Buffer.from(`${creds.username}:${creds.password}`).toString('base64')}`;

  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const scope = url.searchParams.get('scope') ?? '';
    requests.set(scope, (requests.get(scope) ?? 0) + 1);
    if (url.pathname !== '/token' || req.headers.authorization !== expected) {
      res.writeHead(401).end();
      return;
    }
    const access = scope
      ? scope.split(' ').map((s) => {
          const [type, name, actions] = s.split(':');
          return { type, name, actions: (actions ?? '').split(',') };
        })
      : [];
    const now = Math.floor(Date.now() / 1000);
    const header = { typ: 'JWT', alg: 'ES256', x5c: [certDer.toString('base64')] };
    const claims = {
      iss: issuer,
      sub: creds.username,
      aud: service,
      exp: now + 600,
      nbf: now - 10,
      iat: now,
      jti: randomBytes(8).toString('hex'),
      access,
    };
    const input = `${b64url(JSON.stringify(header))}.${b64url(JSON.stringify(claims))}`;
    const sig = sign('sha256', Buffer.from(input), { key, dsaEncoding: 'ieee-p1363' });
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        token: `${input}.${b64url(sig)}`,
        expires_in: 600,
        issued_at: new Date(now * 1000).toISOString(),
      }),
    );
  });
  const port = await freePort();
  await new Promise<void>((r) => server.listen(port, '127.0.0.1', r));
  return {
    realm: `http://127.0.0.1:${port}/token`,
    service,
    issuer,
    rootCertBundle: certFile,
    requests,
    async close() {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
      await rm(dir, { recursive: true, force: true });
    },
  };
}

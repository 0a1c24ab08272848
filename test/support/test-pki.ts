// A throwaway PKI for TLS tests and benches, made with openssl in a directory: a CA (ca.crt,
// ca.key), a server certificate for 127.0.0.1 (server.crt, server.key) and client certificates
// by name (NAME.crt, NAME.key, their subject's CN the name). EC P-256 keys: fast to make.
import { execFileSync } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';

export async function makeTestPki(dir: string, clients: string[] = []): Promise<void> {
  const openssl = (...args: string[]) =>
    execFileSync('openssl', args, { cwd: dir, stdio: 'ignore' });
  const key = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  openssl(
    'req',
    '-x509',
    ...key,
    '-keyout',
    'ca.key',
    '-out',
    'ca.crt',
    '-days',
    '2',
    '-subj',
    '/CN=catalogd-test-ca',
  );
  await writeFile(
    path.join(dir, 'server.ext'),
    'subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth\n',
  );
  await writeFile(path.join(dir, 'client.ext'), 'extendedKeyUsage=clientAuth\n');
  const signed = (name: string, ext: string) => {
    openssl('req', ...key, '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', `/CN=${name}`);
    openssl(
      ...['x509', '-req', '-in', `${name}.csr`, '-CA', 'ca.crt', '-CAkey', 'ca.key'],
      ...['-CAcreateserial', '-days', '2', '-out', `${name}.crt`, '-extfile', ext],
    );
  };
  signed('server', 'server.ext');
  for (const name of clients) signed(name, 'client.ext');
}

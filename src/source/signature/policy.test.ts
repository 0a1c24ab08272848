// The policy parser: scopes and their precedence, every requirement and signedIdentity, the
// key kinds, and refused input (with the message a user sees at start-up).
import { expect } from 'chai';
import { generateKeyPairSync } from 'node:crypto';
import { testKey } from '../../../test/support/signatures.js';
import { parseReference } from '../reference.js';
import { parseSignaturePolicy, PolicyError, requirementsFor } from './policy.js';

const pem = testKey('p256').publicPem;
const files: Record<string, string> = {
  '/keys/a.pub': pem,
  '/keys/rsa.pub': testKey('rsa').publicPem,
  '/keys/ed.pub': testKey('ed25519').publicPem,
  '/keys/secp256k1.pub': generateKeyPairSync('ec', { namedCurve: 'secp256k1' })
    .publicKey.export({ type: 'spki', format: 'pem' })
    .toString(),
  '/keys/not-a-key': 'hello',
};
const readFile = async (p: string) => {
  if (!(p in files)) throw Object.assign(new Error('nope'), { code: 'ENOENT' });
  return Buffer.from(files[p]!);
};
const parse = (doc: unknown) => parseSignaturePolicy(JSON.stringify(doc), readFile);
const signed = { type: 'sigstoreSigned', keyPath: '/keys/a.pub' };

async function refusal(doc: unknown): Promise<string> {
  const err = await parse(doc).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err, 'refused').to.be.instanceOf(PolicyError);
  return (err as Error).message;
}

describe('signature policy', () => {
  it('picks the most specific scope: reference, repository, namespaces, registry, wildcard, "", default', async () => {
    const p = await parse({
      default: [{ type: 'reject' }],
      transports: {
        docker: {
          '': [{ type: 'reject' }, { type: 'insecureAcceptAnything' }],
          '*.example.com': [{ type: 'insecureAcceptAnything' }],
          'a.example.com': [signed],
          'a.example.com/ns': [{ type: 'reject' }],
          'a.example.com/ns/deeper': [signed, { type: 'insecureAcceptAnything' }],
          'a.example.com/ns/deeper/repo': [{ type: 'insecureAcceptAnything' }],
          'a.example.com/ns/deeper/repo:v1': [{ type: 'reject' }],
        },
        'docker-daemon': { '': [{ type: 'insecureAcceptAnything' }] },
      },
    });
    const scope = (ref: string) => requirementsFor(p, parseReference(ref)).scope;
    expect(scope('a.example.com/ns/deeper/repo:v1')).to.equal('a.example.com/ns/deeper/repo:v1');
    expect(scope('a.example.com/ns/deeper/repo:v2')).to.equal('a.example.com/ns/deeper/repo');
    expect(scope('a.example.com/ns/deeper/other')).to.equal('a.example.com/ns/deeper');
    expect(scope('a.example.com/ns/x')).to.equal('a.example.com/ns');
    expect(scope('a.example.com/top')).to.equal('a.example.com');
    expect(scope('b.example.com/top')).to.equal('*.example.com');
    expect(scope('quay.io/x/y')).to.equal('transports.docker[""]');
    expect(requirementsFor(p, parseReference('a.example.com/ns/x')).requirements).to.deep.equal([
      { type: 'reject' },
    ]);
  });

  it('falls back to default without transports', async () => {
    const p = await parse({ default: [{ type: 'insecureAcceptAnything' }] });
    expect(requirementsFor(p, parseReference('quay.io/x')).scope).to.equal('default');
  });

  it('reads keyPath, keyPaths, keyData and keyDatas; P-256, RSA and Ed25519', async () => {
    const p = await parse({
      default: [
        { type: 'sigstoreSigned', keyPaths: ['/keys/a.pub', '/keys/rsa.pub', '/keys/ed.pub'] },
        { type: 'sigstoreSigned', keyDatas: [Buffer.from(pem).toString('base64')] },
        { type: 'sigstoreSigned', keyData: Buffer.from(pem).toString('base64') },
      ],
    });
    const kinds = p.default.map((r) =>
      r.type === 'sigstoreSigned' ? r.keys.map((k) => k.key.asymmetricKeyType) : [],
    );
    expect(kinds).to.deep.equal([['ec', 'rsa', 'ed25519'], ['ec'], ['ec']]);
  });

  it('defaults signedIdentity to matchRepoDigestOrExact and reads the others', async () => {
    const ids = [
      { type: 'matchRepository' },
      { type: 'matchExact' },
      { type: 'exactReference', dockerReference: 'quay.io/x/y:v1' },
      { type: 'exactRepository', dockerRepository: 'quay.io/x/y' },
    ];
    const p = await parse({
      default: [signed, ...ids.map((signedIdentity) => ({ ...signed, signedIdentity }))],
    });
    expect(p.default.map((r) => r.type === 'sigstoreSigned' && r.signedIdentity)).to.deep.equal([
      { type: 'matchRepoDigestOrExact' },
      ...ids,
    ]);
  });

  const cases: [string, unknown, string][] = [
    ['invalid JSON', undefined, 'signature policy: invalid JSON'],
    ['no default', { transports: {} }, 'top level: "default" is required'],
    ['an empty requirement list', { default: [] }, 'default: must be a non-empty array'],
    [
      'an unknown requirement',
      { default: [{ type: 'maybe' }] },
      'unknown requirement type "maybe"',
    ],
    [
      'GPG signedBy',
      { default: [{ type: 'signedBy', keyType: 'GPGKeys', keyPath: '/k' }] },
      '"signedBy" (GPG signatures) is not supported',
    ],
    [
      'a Rekor key',
      { default: [{ ...signed, rekorPublicKeyPath: '/r.pub' }] },
      'default[0]: "rekorPublicKeyPath" requires a Rekor key; not supported',
    ],
    [
      'Fulcio',
      { default: [{ type: 'sigstoreSigned', fulcio: { caPath: '/ca' } }] },
      '"fulcio" (keyless signing) is not supported',
    ],
    [
      'no key',
      { default: [{ type: 'sigstoreSigned' }] },
      'sigstoreSigned needs one of "keyPath", "keyPaths", "keyData", "keyDatas"',
    ],
    [
      'two key fields',
      { default: [{ ...signed, keyData: 'eA==' }] },
      'sigstoreSigned takes only one of "keyPath", "keyData"',
    ],
    [
      'an unreadable key file',
      { default: [{ type: 'sigstoreSigned', keyPath: '/keys/missing' }] },
      'cannot read keyPath /keys/missing (ENOENT)',
    ],
    [
      'a file that is not a key',
      { default: [{ type: 'sigstoreSigned', keyPath: '/keys/not-a-key' }] },
      'keyPath /keys/not-a-key is not a PEM public key',
    ],
    [
      'an unsupported curve',
      { default: [{ type: 'sigstoreSigned', keyPath: '/keys/secp256k1.pub' }] },
      'unsupported key type',
    ],
    [
      'remapIdentity',
      {
        default: [
          { ...signed, signedIdentity: { type: 'remapIdentity', prefix: 'a', signedPrefix: 'b' } },
        ],
      },
      '"remapIdentity" is not supported',
    ],
    ['an unknown field', { default: [{ ...signed, keyPth: '/x' }] }, 'unknown field "keyPth"'],
    [
      'a scope without a registry host',
      {
        default: [{ type: 'reject' }],
        transports: { docker: { 'library/busybox': [{ type: 'reject' }] } },
      },
      'a scope must start with a registry host',
    ],
  ];
  for (const [what, doc, message] of cases)
    it(`refuses ${what}`, async () => {
      const msg =
        doc === undefined
          ? await parseSignaturePolicy('{', readFile).then(
              () => '',
              (e: unknown) => (e as Error).message,
            )
          : await refusal(doc);
      expect(msg).to.include(message);
      expect(msg).to.match(/^signature policy: /);
    });
});

// Signature policies in the containers-policy.json(5) format (the file CRI-O and Podman read):
// `default` plus `transports.docker` scopes, and the requirements this controller can check:
// insecureAcceptAnything, reject and sigstoreSigned with public keys. Anything else that would
// change the decision (GPG signedBy, Fulcio, Rekor keys, remapIdentity, unknown fields) is refused
// when the policy is read, never skipped: a check silently left out would accept what the admin
// meant to refuse. Pure: keys given by path are read through the injected readFile.
import { createPublicKey, type KeyObject } from 'node:crypto';
import { parseReference, referenceName, type ImageReference } from '../reference.js';
import { publicKeyKind } from './keys.js';

export type SignedIdentity =
  | { type: 'matchRepoDigestOrExact' }
  | { type: 'matchRepository' }
  | { type: 'matchExact' }
  | { type: 'exactReference'; dockerReference: string }
  | { type: 'exactRepository'; dockerRepository: string };

export type Requirement =
  | { type: 'insecureAcceptAnything' }
  | { type: 'reject' }
  | {
      type: 'sigstoreSigned';
      keys: PolicyKey[];
      signedIdentity: SignedIdentity;
    };

export interface PolicyKey {
  key: KeyObject;
  /** Where it came from, for messages: `keyPath /etc/...` or `keyData #1`. */
  source: string;
}

export interface SignaturePolicy {
  default: Requirement[];
  /** transports.docker, by scope as written. */
  docker: Map<string, Requirement[]>;
}

/** The requirements that apply to an image, and the scope that chose them (for messages). */
export interface ScopedRequirements {
  scope: string;
  requirements: Requirement[];
}

export class PolicyError extends Error {
  override readonly name = 'PolicyError';
}

const bad = (where: string, why: string) => new PolicyError(`signature policy: ${where}: ${why}`);

type Json = Record<string, unknown>;

function isObject(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function onlyFields(o: Json, allowed: readonly string[], where: string): void {
  for (const k of Object.keys(o)) {
    if (allowed.includes(k)) continue;
    if (/^rekor/.test(k)) throw bad(where, `"${k}" requires a Rekor key; not supported`);
    if (k === 'fulcio') throw bad(where, `"fulcio" (keyless signing) is not supported`);
    if (k === 'pki') throw bad(where, `"pki" (X.509 certificates) is not supported`);
    throw bad(where, `unknown field "${k}"`);
  }
}

function stringField(o: Json, k: string, where: string): string {
  const v = o[k];
  if (typeof v !== 'string' || v === '') throw bad(where, `"${k}" must be a non-empty string`);
  return v;
}

function stringList(o: Json, k: string, where: string): string[] {
  const v = o[k];
  if (!Array.isArray(v) || v.length === 0 || v.some((s) => typeof s !== 'string' || s === ''))
    throw bad(where, `"${k}" must be a non-empty array of non-empty strings`);
  return v as string[];
}

function loadKey(pem: string | Buffer, source: string, where: string): PolicyKey {
  let key: KeyObject;
  try {
    key = createPublicKey(pem);
  } catch {
    throw bad(where, `${source} is not a PEM public key`);
  }
  const kind = publicKeyKind(key);
  if (!kind)
    throw bad(
      where,
      `${source}: unsupported key type (want ECDSA P-256/P-384/P-521, RSA, Ed25519)`,
    );
  return { key, source };
}

function parseIdentity(v: unknown, where: string): SignedIdentity {
  if (v === undefined) return { type: 'matchRepoDigestOrExact' };
  const w = `${where}.signedIdentity`;
  if (!isObject(v)) throw bad(w, 'must be an object');
  switch (v.type) {
    case 'matchRepoDigestOrExact':
    case 'matchRepository':
    case 'matchExact':
      onlyFields(v, ['type'], w);
      return { type: v.type };
    case 'exactReference': {
      onlyFields(v, ['type', 'dockerReference'], w);
      const ref = stringField(v, 'dockerReference', w);
      const parsed = parseRef(ref, w);
      if (!parsed.tag && !parsed.digest) throw bad(w, `"dockerReference" needs a tag or digest`);
      return { type: 'exactReference', dockerReference: ref };
    }
    case 'exactRepository': {
      onlyFields(v, ['type', 'dockerRepository'], w);
      const repo = stringField(v, 'dockerRepository', w);
      parseRef(repo, w);
      return { type: 'exactRepository', dockerRepository: repo };
    }
    case 'remapIdentity':
      throw bad(w, `"remapIdentity" is not supported`);
    default:
      throw bad(w, `unknown type ${JSON.stringify(v.type)}`);
  }
}

function parseRef(s: string, where: string): ImageReference {
  try {
    return parseReference(s);
  } catch {
    throw bad(where, `${JSON.stringify(s)} is not an image reference`);
  }
}

async function parseRequirement(
  v: unknown,
  where: string,
  readFile: (path: string) => Promise<Buffer>,
): Promise<Requirement> {
  if (!isObject(v)) throw bad(where, 'must be an object');
  switch (v.type) {
    case 'insecureAcceptAnything':
    case 'reject':
      onlyFields(v, ['type'], where);
      return { type: v.type };
    case 'signedBy':
      throw bad(where, `"signedBy" (GPG signatures) is not supported; use "sigstoreSigned"`);
    case 'sigstoreSigned': {
      onlyFields(
        v,
        ['type', 'keyPath', 'keyPaths', 'keyData', 'keyDatas', 'signedIdentity'],
        where,
      );
      const given = ['keyPath', 'keyPaths', 'keyData', 'keyDatas'].filter((k) => k in v);
      if (given.length !== 1)
        throw bad(
          where,
          given.length === 0
            ? 'sigstoreSigned needs one of "keyPath", "keyPaths", "keyData", "keyDatas"'
            : `sigstoreSigned takes only one of ${given.map((k) => `"${k}"`).join(', ')}`,
        );
      const keys: PolicyKey[] = [];
      const field = given[0]!;
      if (field === 'keyPath' || field === 'keyPaths') {
        const paths =
          field === 'keyPath' ? [stringField(v, field, where)] : stringList(v, field, where);
        for (const p of paths) {
          let pem: Buffer;
          try {
            pem = await readFile(p);
          } catch (err) {
            const code = (err as { code?: unknown }).code;
            throw bad(
              where,
              `cannot read ${field} ${p}${typeof code === 'string' ? ` (${code})` : ''}`,
            );
          }
          keys.push(loadKey(pem, `keyPath ${p}`, where));
        }
      } else {
        const datas =
          field === 'keyData' ? [stringField(v, field, where)] : stringList(v, field, where);
        for (const [i, d] of datas.entries()) {
          const pem = Buffer.from(d, 'base64');
          keys.push(loadKey(pem, datas.length === 1 ? 'keyData' : `keyDatas[${i}]`, where));
        }
      }
      return {
        type: 'sigstoreSigned',
        keys,
        signedIdentity: parseIdentity(v.signedIdentity, where),
      };
    }
    default:
      throw bad(where, `unknown requirement type ${JSON.stringify(v.type)}`);
  }
}

async function parseRequirements(
  v: unknown,
  where: string,
  readFile: (path: string) => Promise<Buffer>,
): Promise<Requirement[]> {
  if (!Array.isArray(v) || v.length === 0)
    throw bad(where, 'must be a non-empty array of requirements');
  const out: Requirement[] = [];
  for (const [i, r] of v.entries()) out.push(await parseRequirement(r, `${where}[${i}]`, readFile));
  return out;
}

/** A docker scope: `host[:port]`, `host[:port]/ns...`, a full reference, `*.domain`, or "". */
function checkScope(scope: string, where: string): void {
  if (scope === '') return;
  if (scope.startsWith('*.')) {
    if (!/^\*\.[a-z0-9-]+(\.[a-z0-9-]+)*$/.test(scope)) throw bad(where, 'invalid wildcard scope');
    return;
  }
  if (!scope.includes('/')) {
    if (!/^[a-zA-Z0-9.-]+(:[0-9]+)?$/.test(scope)) throw bad(where, 'invalid registry scope');
    return;
  }
  const host = scope.slice(0, scope.indexOf('/'));
  if (!host.includes('.') && !host.includes(':') && host !== 'localhost')
    throw bad(where, 'a scope must start with a registry host (e.g. docker.io/library/busybox)');
  parseRef(scope, where);
}

/** Parses a policy document; keyPath files are read with readFile. Throws PolicyError. */
export async function parseSignaturePolicy(
  text: string,
  readFile: (path: string) => Promise<Buffer>,
): Promise<SignaturePolicy> {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (err) {
    throw new PolicyError(`signature policy: invalid JSON (${(err as Error).message})`);
  }
  if (!isObject(doc)) throw new PolicyError('signature policy: must be a JSON object');
  onlyFields(doc, ['default', 'transports'], 'top level');
  if (!('default' in doc)) throw bad('top level', '"default" is required');
  const policy: SignaturePolicy = {
    default: await parseRequirements(doc.default, 'default', readFile),
    docker: new Map(),
  };
  if (doc.transports === undefined) return policy;
  if (!isObject(doc.transports)) throw bad('transports', 'must be an object');
  for (const [transport, scopes] of Object.entries(doc.transports)) {
    if (!isObject(scopes)) throw bad(`transports.${transport}`, 'must be an object of scopes');
    // Other transports (docker-daemon, atomic, ...) never apply to a registry pull: a file shared
    // with CRI-O or Podman may have them.
    if (transport !== 'docker') continue;
    for (const [scope, reqs] of Object.entries(scopes)) {
      const where = `transports.docker[${JSON.stringify(scope)}]`;
      checkScope(scope, where);
      policy.docker.set(scope, await parseRequirements(reqs, where, readFile));
    }
  }
  return policy;
}

/**
 * The requirements for ref, from the most specific scope that matches (as containers/image):
 * the exact reference (with its tag or digest), then the repository, then each enclosing
 * namespace, then the registry, then wildcard domains (most specific first), then the docker
 * transport's "" scope, then `default`.
 */
export function requirementsFor(policy: SignaturePolicy, ref: ImageReference): ScopedRequirements {
  const name = referenceName(ref);
  const candidates: string[] = [];
  if (ref.digest) candidates.push(`${name}@${ref.digest}`);
  if (ref.tag) candidates.push(`${name}:${ref.tag}`);
  const parts = name.split('/');
  for (let n = parts.length; n >= 1; n--) candidates.push(parts.slice(0, n).join('/'));
  const host = ref.registry.replace(/:[0-9]+$/, '');
  const labels = host.split('.');
  for (let i = 1; i < labels.length; i++) candidates.push(`*.${labels.slice(i).join('.')}`);
  candidates.push('');
  for (const c of candidates) {
    const reqs = policy.docker.get(c);
    if (reqs) return { scope: c === '' ? 'transports.docker[""]' : c, requirements: reqs };
  }
  return { scope: 'default', requirements: policy.default };
}

// `catalogd push <dir> <ref>`: packages an FBC directory as a catalog image (one gzip layer under
// /configs, the configs label, OCI media types) and pushes it; prints the digest reference.
import { commandArgs } from './command-args.js';
import { readFile } from 'node:fs/promises';
import { stderr, stdout } from 'node:process';
import { parseArgs } from 'node:util';
import {
  isRetryable,
  parseDockerConfigJSON,
  parsePlatform,
  parseRegistriesConfig,
  pushCatalog,
} from '../source/index.js';
import { loadSigningKey } from '../source/signature/index.js';
import { catalogDirProblem } from './catalog-dir.js';

const usage = `usage: catalogd push [flags] <dir> <ref>

Packages the file-based catalog in <dir> as a catalog image and pushes it to <ref>.
Prints the pushed image's digest reference (registry/repository@sha256:...).

flags:
  --registries-conf FILE   registries.conf-style file (mirrors are ignored; insecure honoured)
  --auth-file FILE         docker config JSON ({"auths": {...}}) with credentials
  --ca-file FILE           PEM CA bundle trusted besides the system roots
  --platform OS/ARCH       platform recorded in the image config (default linux/amd64)
  --sign-key FILE          also sign the pushed digest with this PEM private key (PKCS#8, or
                           SEC1/PKCS#1; ECDSA, RSA, Ed25519) as cosign does: a simple-signing
                           payload under the sha256-<hex>.sig tag (no transparency log)
`;

export async function main(args: string[]): Promise<number> {
  const parsed = commandArgs('push', usage, () =>
    parseArgs({
      args,
      allowPositionals: true,
      options: {
        'registries-conf': { type: 'string' },
        'auth-file': { type: 'string' },
        'ca-file': { type: 'string' },
        platform: { type: 'string' },
        'sign-key': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    }),
  );
  if (typeof parsed === 'number') return parsed;
  const { values, positionals } = parsed;
  if (positionals.length !== 2) {
    stderr.write(usage);
    return 2;
  }
  const [dir, ref] = positionals as [string, string];
  const problem = await catalogDirProblem(dir);
  if (problem !== undefined) {
    stderr.write(`catalogd push: ${problem}\n`);
    return 1;
  }
  try {
    const opts: Parameters<typeof pushCatalog>[2] = {};
    if (values['registries-conf'])
      opts.registries = parseRegistriesConfig(await readFile(values['registries-conf'], 'utf8'));
    if (values['auth-file']) {
      const config = parseDockerConfigJSON(await readFile(values['auth-file'], 'utf8'));
      opts.pullSecrets = { dockerConfigs: async () => [config] };
    }
    if (values['ca-file']) opts.caBundle = await readFile(values['ca-file']);
    if (values.platform) opts.platform = parsePlatform(values.platform);
    const signKey = values['sign-key'];
    if (signKey) opts.signKey = loadSigningKey(await readFile(signKey), `--sign-key ${signKey}`);
    const { ref: pushed } = await pushCatalog(dir, ref, opts);
    stdout.write(`${pushed}\n`);
    return 0;
  } catch (err) {
    // The outermost message already names the cause (`push catalog image <ref>: …`).
    const message = err instanceof Error ? err.message : String(err);
    stderr.write(`catalogd push: ${message}${isRetryable(err) ? ' (retryable)' : ''}\n`);
    return 1;
  }
}

// Turning the controller's flags and Secrets into puller options: the registries.conf-style file,
// the CA bundle file, the platform, and Secrets of type kubernetes.io/dockerconfigjson.
import { readFile } from 'node:fs/promises';
import { parseDockerConfigJSON, type DockerConfigJSON } from './docker-config.js';
import { terminal } from './errors.js';
import { parsePlatform } from './manifest.js';
import type { ImagePullerOptions } from './puller.js';
import { parseRegistriesConfig } from './registries-conf.js';

export interface SourceFlags {
  /** Where unpacked catalogs are cached (one directory per digest). */
  cacheDir: string;
  /** --registries-conf: a registries.conf-style file (mirrors, insecure, blocked). */
  registriesConf?: string;
  /** --ca-file: PEM bundle trusted for registries besides the system roots. */
  caFile?: string;
  /** --platform: os/arch[/variant] picked from image indexes (default linux/amd64). */
  platform?: string;
}

export async function pullerOptionsFromFlags(flags: SourceFlags): Promise<ImagePullerOptions> {
  const opts: ImagePullerOptions = { cacheDir: flags.cacheDir };
  if (flags.registriesConf)
    opts.registries = parseRegistriesConfig(
      await readConfigFile(flags.registriesConf, 'registries config'),
    );
  if (flags.caFile) opts.caBundle = await readConfigFile(flags.caFile, 'CA bundle');
  if (flags.platform) opts.platform = parsePlatform(flags.platform);
  return opts;
}

async function readConfigFile(file: string, what: string): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch (err) {
    throw terminal('InvalidConfig', `cannot read the ${what} file`, err);
  }
}

export const DOCKER_CONFIG_JSON_SECRET_TYPE = 'kubernetes.io/dockerconfigjson';

/** The shape of a core/v1 Secret this needs (data values are base64, as the API returns them). */
export interface SecretLike {
  type?: string;
  data?: Record<string, string>;
}

/** The docker config of a kubernetes.io/dockerconfigjson Secret, or undefined for other types. */
export function dockerConfigFromSecret(secret: SecretLike): DockerConfigJSON | undefined {
  if (secret.type !== DOCKER_CONFIG_JSON_SECRET_TYPE) return undefined;
  const raw = secret.data?.['.dockerconfigjson'];
  if (!raw) return undefined;
  return parseDockerConfigJSON(Buffer.from(raw, 'base64').toString('utf8'));
}

// The requestheader settings as kube-apiserver publishes them in
// kube-system/extension-apiserver-authentication (its --requestheader-* flags): the front-proxy
// client CA (PEM) and JSON arrays of the allowed names and header names. Missing header names
// take kube-apiserver's defaults, as the aggregated apiservers' loaders do.
import type { RequestHeaderConfig } from './requestheader.js';
import { RequestHeaderConfigError } from './requestheader.js';

export const AUTHENTICATION_CONFIGMAP = {
  namespace: 'kube-system',
  name: 'extension-apiserver-authentication',
} as const;

const DEFAULTS = {
  usernameHeaders: ['X-Remote-User'],
  uidHeaders: [] as string[],
  groupHeaders: ['X-Remote-Group'],
  extraHeaderPrefixes: ['X-Remote-Extra-'],
};

function stringList(data: Record<string, string>, key: string): string[] | undefined {
  const raw = data[key];
  if (raw === undefined || raw.trim() === '') return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw new RequestHeaderConfigError(`${key} is not a JSON list of strings`);
  }
  if (!Array.isArray(parsed) || parsed.some((v) => typeof v !== 'string'))
    throw new RequestHeaderConfigError(`${key} is not a JSON list of strings`);
  return parsed as string[];
}

/**
 * The settings of the ConfigMap's data; undefined when it names no front-proxy client CA (the
 * aggregation layer is not configured: no request can be authenticated).
 */
export function requestHeaderConfigFromData(
  data: Record<string, string> | undefined,
): RequestHeaderConfig | undefined {
  const clientCA = data?.['requestheader-client-ca-file'];
  if (!data || !clientCA?.trim()) return undefined;
  return {
    clientCA,
    allowedNames: stringList(data, 'requestheader-allowed-names') ?? [],
    usernameHeaders: stringList(data, 'requestheader-username-headers') ?? DEFAULTS.usernameHeaders,
    uidHeaders: stringList(data, 'requestheader-uid-headers') ?? DEFAULTS.uidHeaders,
    groupHeaders: stringList(data, 'requestheader-group-headers') ?? DEFAULTS.groupHeaders,
    extraHeaderPrefixes:
      stringList(data, 'requestheader-extra-headers-prefix') ?? DEFAULTS.extraHeaderPrefixes,
  };
}

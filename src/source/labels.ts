// The image config label that names the catalog directory inside a catalog image.
import { terminal } from './errors.js';

export const CONFIGS_LABEL = 'operators.operatorframework.io.index.configs.v1';
export const DEFAULT_CONFIGS_DIR = '/configs';

/** The catalog directory from an image config blob (label, or the default). */
export function catalogDirFromConfig(configBytes: Buffer, what: string): string {
  let doc: { config?: { Labels?: Record<string, unknown> | null } | null };
  try {
    doc = JSON.parse(configBytes.toString('utf8')) as typeof doc;
  } catch {
    // Not the parser's error as a cause: its message quotes the config.
    throw terminal('InvalidLayer', `${what}: image config is not valid JSON`);
  }
  const v = doc?.config?.Labels?.[CONFIGS_LABEL];
  if (v === undefined || v === null || v === '') return DEFAULT_CONFIGS_DIR;
  if (typeof v !== 'string')
    throw terminal('InvalidLayer', `${what}: label ${CONFIGS_LABEL} is not a string`);
  return v;
}

// What config/manager/deployment.yaml runs the controller with, read from the YAML (parsed,
// not matched: a pattern would keep the quotes of `value: '2'`), so tests and the bench that
// run the controller "as deployed" follow the Deployment when it changes.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { loadAll } from 'js-yaml';
import { repoRoot } from './cluster.js';

type EnvVar = { name: string; value?: string };
type Deployment = {
  kind?: string;
  spec?: { template?: { spec?: { containers?: Array<{ env?: EnvVar[] }> } } };
};

function deployedEnvVars(): EnvVar[] {
  const file = path.join(repoRoot, 'config', 'manager', 'deployment.yaml');
  const docs = loadAll(readFileSync(file, 'utf8')) as Deployment[];
  const containers = docs.find((d) => d?.kind === 'Deployment')?.spec?.template?.spec?.containers;
  return (containers ?? []).flatMap((c) => c.env ?? []);
}

/** The value of an env var of the Deployment's container, or undefined. */
export function deployedEnv(name: string): string | undefined {
  const value = deployedEnvVars().find((e) => e.name === name)?.value;
  return value === undefined ? undefined : String(value);
}

/** The Deployment's glibc malloc tunables (its MALLOC_* env vars). */
export function deployedMallocEnv(): Record<string, string> {
  const out: Record<string, string> = {};
  for (const e of deployedEnvVars())
    if (e.name.startsWith('MALLOC_') && e.value !== undefined) out[e.name] = String(e.value);
  return out;
}

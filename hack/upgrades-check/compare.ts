// Compares the client library's one-step upgrades (src/answers/upgrades.ts) with an independent
// computation in Go on github.com/blang/semver/v4 itself (main.go here), for every entry of every
// channel of FBC catalogs, and semver.ts's range matching with blang's on given pairs; and the
// `packages --install-mode` filter (src/answers/packages.ts) with the Go program's own reading of
// each default channel head's installModes.
//
//   npx tsx hack/upgrades-check/compare.ts DIR...     (FBC directories, e.g. community catalogs)
//
// Prints, per directory, the packages, channels and entries compared and the upgrades found by
// each rule; exits 1 when any entry differs (and prints the first differences).
import { execFile, spawnSync } from 'node:child_process';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { readCatalog } from '../../src/fbc/index.js';
import type { AnyBlob, BundleBlob, ChannelBlob } from '../../src/client/index.js';
import {
  INSTALL_MODES,
  isBundleBlob,
  isChannelBlob,
  isPackageBlob,
  matchesPackageFilter,
  packageFacts,
  parseRange,
  parseVersion,
  satisfies,
  upgradesFrom,
  versionMap,
} from '../../src/client/index.js';

/** The checker binary (built and cached by build.sh); throws when it cannot be built. */
export function checkerBinary(): string {
  const built = spawnSync(path.join(import.meta.dirname, 'build.sh'), { encoding: 'utf8' });
  if (built.status !== 0)
    throw new Error(`upgrades-check could not be built: ${built.stderr.trim().split('\n').pop()}`);
  return built.stdout.trim();
}

function runChecker(bin: string, args: string[], input: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = execFile(bin, args, { maxBuffer: 1 << 30 }, (err, stdout, stderr) =>
      err ? reject(new Error(`${err.message}: ${stderr}`)) : resolve(stdout),
    );
    child.stdin!.end(input);
  });
}

/** blang's answer for each (range, version): true, false, or 'error' (either does not parse). */
export async function blangSatisfies(
  bin: string,
  pairs: ReadonlyArray<readonly [string, string]>,
): Promise<Array<boolean | 'error'>> {
  const out = await runChecker(bin, ['-ranges'], pairs.map(([r, v]) => `${r}\t${v}\n`).join(''));
  return out
    .trim()
    .split('\n')
    .map((l) => (l === 'error' ? 'error' : l === 'true'));
}

/** semver.ts's answer for the same pairs. */
export function ourSatisfies(
  pairs: ReadonlyArray<readonly [string, string]>,
): Array<boolean | 'error'> {
  return pairs.map(([r, v]) => {
    try {
      return satisfies(parseVersion(v), parseRange(r));
    } catch {
      return 'error';
    }
  });
}

export interface UpgradeComparison {
  packages: number;
  channels: number;
  /** (channel, entry) pairs compared. */
  entries: number;
  /** One-step upgrades found (pairs installed → target), and by rule (a pair may have several). */
  upgrades: number;
  byVia: Record<string, number>;
  /** Lines `package/channel from: ours | blang` for each entry that differs. */
  differences: string[];
}

/** Our successors of every channel entry, in the checker's line format. */
function ourLines(blobs: readonly AnyBlob[]): string[] {
  const bundles = new Map<string, BundleBlob[]>();
  for (const b of blobs)
    if (isBundleBlob(b)) bundles.set(b.package, [...(bundles.get(b.package) ?? []), b]);
  const lines: string[] = [];
  for (const c of blobs.filter((b): b is ChannelBlob => isChannelBlob(b))) {
    const versions = versionMap(bundles.get(c.package) ?? []);
    for (const e of c.entries) {
      const u = upgradesFrom(c, e.name, versions);
      const successors = u.items
        .map((i) => ({ name: i.name, via: i.via }))
        .sort((a, b) => (a.name < b.name ? -1 : 1));
      lines.push(JSON.stringify({ package: c.package, channel: c.name, from: e.name, successors }));
    }
  }
  return lines;
}

export async function compareBlobs(
  bin: string,
  blobs: readonly AnyBlob[],
): Promise<UpgradeComparison> {
  const theirs = (await runChecker(bin, [], blobs.map((b) => `${JSON.stringify(b)}\n`).join('')))
    .trim()
    .split('\n')
    .filter((l) => l !== '');
  const ours = ourLines(blobs);
  const key = (l: string) => {
    const o = JSON.parse(l) as { package: string; channel: string; from: string };
    return `${o.package}/${o.channel} ${o.from}`;
  };
  const theirMap = new Map(theirs.map((l) => [key(l), l]));
  const differences: string[] = [];
  const byVia: Record<string, number> = { replaces: 0, skips: 0, skipRange: 0 };
  let upgrades = 0;
  for (const l of ours) {
    const t = theirMap.get(key(l));
    // Go's encoder and JSON.stringify agree on these plain strings and arrays.
    if (t !== l) differences.push(`${key(l)}: ours ${l} | blang ${t ?? '<missing>'}`);
    theirMap.delete(key(l));
    const o = JSON.parse(l) as { successors: Array<{ via: string[] }> };
    upgrades += o.successors.length;
    for (const s of o.successors) for (const v of s.via) byVia[v] = (byVia[v] ?? 0) + 1;
  }
  for (const [k, t] of theirMap) differences.push(`${k}: ours <missing> | blang ${t}`);
  const channels = blobs.filter(isChannelBlob);
  return {
    packages: new Set(blobs.filter(isBundleBlob).map((b) => b.package)).size,
    channels: channels.length,
    entries: ours.length,
    upgrades,
    byVia,
    differences,
  };
}

export interface InstallModeComparison {
  /** Packages with a single default channel head that has olm.csv.metadata (Go's count). */
  withCsvHead: number;
  /** Mode → packages matching `--install-mode MODE` (ours). */
  matching: Record<string, number>;
  differences: string[];
}

/** `--install-mode M` for each mode: our filter against the Go program's head and installModes. */
export async function compareInstallModes(
  bin: string,
  blobs: readonly AnyBlob[],
): Promise<InstallModeComparison> {
  const theirs = new Map<string, string[]>();
  const out = await runChecker(
    bin,
    ['-install-modes'],
    blobs.map((b) => `${JSON.stringify(b)}\n`).join(''),
  );
  for (const l of out.trim().split('\n').filter(Boolean)) {
    const o = JSON.parse(l) as { package: string; modes: string[] };
    theirs.set(o.package, o.modes);
  }
  const matching: Record<string, number> = {};
  const differences: string[] = [];
  const channels = blobs.filter(isChannelBlob);
  const bundles = blobs.filter(isBundleBlob);
  for (const p of blobs.filter(isPackageBlob)) {
    const facts = packageFacts(
      p,
      channels.filter((c) => c.package === p.name),
      bundles.filter((b) => b.package === p.name),
    );
    for (const mode of INSTALL_MODES) {
      const ours = matchesPackageFilter(facts, { installMode: mode });
      const their = theirs.get(p.name)?.includes(mode) ?? false;
      if (ours) matching[mode] = (matching[mode] ?? 0) + 1;
      if (ours !== their) differences.push(`${p.name} ${mode}: ours ${ours}, independent ${their}`);
    }
  }
  return { withCsvHead: theirs.size, matching, differences };
}

export async function readBlobs(dir: string): Promise<AnyBlob[]> {
  const blobs: AnyBlob[] = [];
  for await (const b of readCatalog(dir, { catalog: 'compare' })) blobs.push(b.content as AnyBlob);
  return blobs;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const bin = checkerBinary();
  let failed = false;
  for (const dir of process.argv.slice(2)) {
    const r = await compareBlobs(bin, await readBlobs(dir));
    console.log(
      `${dir}: ${r.packages} packages, ${r.channels} channels, ${r.entries} entries, ${r.upgrades} one-step upgrades (replaces ${r.byVia.replaces}, skips ${r.byVia.skips}, skipRange ${r.byVia.skipRange}); ${r.differences.length} differences`,
    );
    for (const d of r.differences.slice(0, 10)) console.log(`  ${d}`);
    if (r.differences.length > 0) failed = true;
    const m = await compareInstallModes(bin, await readBlobs(dir));
    console.log(
      `${dir}: --install-mode: ${m.withCsvHead} packages with a default channel head with CSV metadata; matching ${INSTALL_MODES.map((x) => `${x} ${m.matching[x] ?? 0}`).join(', ')}; ${m.differences.length} differences`,
    );
    for (const d of m.differences.slice(0, 10)) console.log(`  ${d}`);
    if (m.differences.length > 0) failed = true;
  }
  process.exitCode = failed ? 1 : 0;
}

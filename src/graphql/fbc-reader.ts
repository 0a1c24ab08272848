// What the additions (additions.ts) read of a revision for one query: one package's blobs at a
// time, through the revision's package and name indexes (never the whole catalog, but for
// fbcPackages with filters and fbcProvides, which stream), typed by the client library's
// readers (src/answers) and kept for the query's other fields. What is kept counts against the
// query's answer budget; what is read against its read budget (QueryRun).
import type {
  AnyBlob,
  BundleBlob,
  ChannelBlob,
  DeprecationsBlob,
  PackageBlob,
} from '../answers/fbc-types.js';
import {
  PROPERTY_PACKAGE,
  SCHEMA_BUNDLE,
  SCHEMA_CHANNEL,
  SCHEMA_DEPRECATIONS,
  SCHEMA_PACKAGE,
  isBundleBlob,
  isChannelBlob,
  isDeprecationsBlob,
  isPackageBlob,
  typedBlob,
} from '../answers/fbc-types.js';
import { channelHead } from '../answers/graph.js';
import { packageFacts } from '../answers/packages.js';
import type { PackageFacts } from '../answers/packages.js';
import type { MetasQuery } from '../server/index.js';
import type { RevisionCache } from './package-cache.js';
import { jsonSizeUpTo } from './json-size.js';
import { isObject } from './shape.js';

const byName = <T extends { name: string }>(a: T, b: T): number =>
  a.name < b.name ? -1 : a.name > b.name ? 1 : 0;

/** A blob as the client library reads it (typedBlob), or undefined for a non-object line. */
export function typed(value: unknown): AnyBlob | undefined {
  return isObject(value) && typeof value.schema === 'string'
    ? typedBlob(value as AnyBlob)
    : undefined;
}

/** What the reader needs of one query's run (QueryRun): its reads and its answer budget. */
export interface QueryReads {
  /** The blobs a metas query selects, or one schema's (a name), parsed, in blob order. */
  blobs(query: MetasQuery | string, skip?: number, take?: number): AsyncIterable<unknown>;
  /** Counts bytes kept for the answer; throws past the query's budget. */
  hold(bytes: number): void;
  /** Where the revision's package blobs, channels and bundle stubs are kept across queries. */
  readonly cached?: RevisionCache | undefined;
}

/** About the JSON size of a value (no string of it is built). */
const sizeOf = (value: unknown): number => jsonSizeUpTo(value, Number.MAX_SAFE_INTEGER);

/** Bundle stubs (bundleStub): a field a stub lacks reads the whole bundle (wholeBundle). */
const stubs = new WeakSet<BundleBlob>();

/** Its name, package and olm.package property (its version): what a channel head asks. */
function stubOf(b: BundleBlob): BundleBlob {
  const stub: BundleBlob = {
    schema: SCHEMA_BUNDLE,
    package: b.package,
    name: b.name,
    properties: (b.properties ?? []).filter((p) => p.type === PROPERTY_PACKAGE),
  };
  stubs.add(stub);
  return stub;
}

export class FbcReader {
  private readonly kept = new Map<string, Promise<unknown>>();

  constructor(private readonly run: QueryReads) {}

  /** The olm.package blob of `name` (kept across queries). */
  pkg(name: string): Promise<PackageBlob | undefined> {
    return this.once(`p\0${name}`, () =>
      this.across(`p\0${name}`, async () =>
        (await this.page({ schema: SCHEMA_PACKAGE, name })).find(isPackageBlob),
      ),
    );
  }

  /** The package's channels, by name (kept across queries). */
  channels(pkg: string): Promise<ChannelBlob[]> {
    return this.once(`c\0${pkg}`, () =>
      this.across(`c\0${pkg}`, async () =>
        (await this.page({ schema: SCHEMA_CHANNEL, package: pkg }))
          .filter(isChannelBlob)
          .sort(byName),
      ),
    );
  }

  /** One bundle of the package, whole. */
  bundle(pkg: string, name: string): Promise<BundleBlob | undefined> {
    return this.once(`b\0${pkg}\0${name}`, async () =>
      (await this.page({ schema: SCHEMA_BUNDLE, package: pkg, name })).find(isBundleBlob),
    );
  }

  /**
   * One bundle of the package as a stub (stubOf; kept across queries): read whole the first
   * time (this query's other fields have it whole), then from the cache, unread.
   */
  bundleStub(pkg: string, name: string): Promise<BundleBlob | undefined> {
    return this.once(`s\0${pkg}\0${name}`, () =>
      this.across(`s\0${pkg}\0${name}`, async () => {
        const whole = await this.bundle(pkg, name);
        return whole && stubOf(whole);
      }),
    );
  }

  /** `b` whole: itself, or the bundle a stub stands for. */
  async wholeBundle(b: BundleBlob): Promise<BundleBlob> {
    return stubs.has(b) ? ((await this.bundle(b.package, b.name)) ?? b) : b;
  }

  /** A page of the package's bundles, whole, in blob order (by name): only the page is read. */
  bundlePage(pkg: string, skip: number, take: number): Promise<BundleBlob[]> {
    return this.once(`B\0${pkg}\0${skip}\0${take}`, async () =>
      (await this.page({ schema: SCHEMA_BUNDLE, package: pkg }, undefined, skip, take)).filter(
        isBundleBlob,
      ),
    );
  }

  /** The package's bundles that `keep` accepts, in blob order, a page of them (where). */
  bundlesWhere(
    pkg: string,
    keep: (b: BundleBlob) => boolean,
    skip = 0,
    take = Infinity,
  ): Promise<BundleBlob[]> {
    return this.where({ schema: SCHEMA_BUNDLE, package: pkg }, isBundleBlob, keep, skip, take);
  }

  /**
   * The blobs `query` selects (a metas query, or a schema's name) that `is` and `keep` accept,
   * typed, in blob order, the `skip`-th to at most `take` of them: every selected blob is read,
   * only those on the page are kept (counted against the answer budget).
   */
  async where<T extends AnyBlob>(
    query: MetasQuery | string,
    is: (b: AnyBlob) => b is T,
    keep: (b: T) => boolean | Promise<boolean>,
    skip = 0,
    take = Infinity,
  ): Promise<T[]> {
    const out: T[] = [];
    let skipped = 0;
    for await (const value of this.run.blobs(query)) {
      const b = typed(value);
      if (!b || !is(b) || !(await keep(b))) continue;
      if (skipped < skip) {
        skipped++;
        continue;
      }
      this.run.hold(sizeOf(b));
      if (out.push(b) >= take) break;
    }
    return out;
  }

  /**
   * The blobs `query` selects (a metas query, or a schema's name), the page `skip`, `take` of
   * them, those `is` accepts (default all), typed and counted against the answer budget: only
   * the page is read.
   */
  async page<T extends AnyBlob = AnyBlob>(
    query: MetasQuery | string,
    is?: (b: AnyBlob) => b is T,
    skip?: number,
    take?: number,
  ): Promise<T[]> {
    const out: T[] = [];
    for await (const value of this.run.blobs(query, skip, take)) {
      const b = typed(value);
      if (!b || (is && !is(b))) continue;
      this.run.hold(sizeOf(b));
      out.push(b as T);
    }
    return out;
  }

  /**
   * Every bundle of the package as a stub (stubOf: its name and olm.package property, what
   * versions and upgrades read): a package of large bundles costs its reads, not its size kept.
   */
  bundleVersions(pkg: string): Promise<BundleBlob[]> {
    return this.once(`v\0${pkg}`, async () => {
      const out: BundleBlob[] = [];
      for await (const value of this.run.blobs({ schema: SCHEMA_BUNDLE, package: pkg })) {
        const b = typed(value);
        if (!b || !isBundleBlob(b)) continue;
        const stub = stubOf(b);
        this.run.hold(sizeOf(stub));
        out.push(stub);
      }
      return out;
    });
  }

  /** The package's olm.deprecations blob, if any. */
  deprecations(pkg: string): Promise<DeprecationsBlob | undefined> {
    return this.once(`d\0${pkg}`, async () =>
      (await this.page({ schema: SCHEMA_DEPRECATIONS, package: pkg })).find(isDeprecationsBlob),
    );
  }

  /**
   * What the package filters read (the client library's packageFacts): its default channel's
   * head bundle's metadata. The head is read and dropped; only the facts are kept.
   */
  facts(p: PackageBlob): Promise<PackageFacts> {
    return this.once(`f\0${p.name}`, async () => {
      // A search through every package keeps their facts, not their channels.
      const channels = this.kept.has(`c\0${p.name}`)
        ? await this.channels(p.name)
        : await this.typedOf({ schema: SCHEMA_CHANNEL, package: p.name }, isChannelBlob);
      const def = channels.find((c) => c.name === p.defaultChannel);
      const head = def ? channelHead(def).head : undefined;
      const bundles =
        head === undefined
          ? []
          : await this.typedOf(
              { schema: SCHEMA_BUNDLE, package: p.name, name: head },
              isBundleBlob,
            );
      const facts = packageFacts(p, channels, bundles);
      this.run.hold(sizeOf(facts));
      return facts;
    });
  }

  /** The blobs `query` selects that `is` accepts, typed, not kept. */
  private async typedOf<T extends AnyBlob>(
    query: MetasQuery,
    is: (b: AnyBlob) => b is T,
  ): Promise<T[]> {
    const out: T[] = [];
    for await (const value of this.run.blobs(query)) {
      const b = typed(value);
      if (b && is(b)) out.push(b);
    }
    return out;
  }

  /**
   * The revision's value of `key` from the cache across queries, else read and kept there (a
   * value taken from the cache counts against this query's answer budget as a read one does).
   */
  private async across<T>(key: string, read: () => Promise<T>): Promise<T> {
    const cached = this.run.cached;
    if (!cached) return read();
    const at = `${cached.revision}\0${key}`;
    const kept = cached.cache.get(at) as { value: T; bytes: number } | undefined;
    if (kept) {
      this.run.hold(kept.bytes);
      return kept.value;
    }
    const value = await read();
    const bytes = sizeOf(value);
    cached.cache.set(at, { value, bytes }, bytes);
    return value;
  }

  private once<T>(key: string, read: () => Promise<T>): Promise<T> {
    let p = this.kept.get(key) as Promise<T> | undefined;
    if (!p) {
      p = read();
      this.kept.set(key, p);
    }
    return p;
  }
}

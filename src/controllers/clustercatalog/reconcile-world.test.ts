// The world of the inner reconcile's tests (reconcile.test.ts, reconcile-rollback.test.ts): small
// in-memory implementations of its narrow interfaces (Puller, Syncer, ContentPublisher,
// StatusSink, Clock). Named *.test.ts so that the build leaves it out; it holds no tests.
import { clusterCatalog } from '../../../test/support/cluster-catalog.js';
import type { ClusterCatalog, ClusterCatalogStatus } from '../../api/v1/index.js';
import type { ScanResult, SyncPlan } from '../../sync/index.js';
import type { ContentPublisher, Puller, ReconcileDeps, Syncer } from './reconcile.js';

export const DIGEST = `sha256:${'a'.repeat(64)}`;
export const HASH = `sha256:${'b'.repeat(64)}`;
export const NOW = new Date('2026-01-02T03:04:05Z');
export const PREV_HASH = `sha256:${'e'.repeat(64)}`;

export function catalog(
  spec: Partial<ClusterCatalog['spec']> = {},
  status?: ClusterCatalogStatus,
): ClusterCatalog {
  return clusterCatalog({ spec, ...(status && { status }) });
}

export interface World {
  deps: ReconcileDeps;
  statusWrites: ClusterCatalogStatus[];
  calls: string[];
}

/** The scan of a 7-blob catalog of content HASH. */
export function scanResult(): ScanResult {
  return {
    desired: new Map(),
    contentHash: HASH,
    blobs: 7,
    omitted: 0,
    bytes: 100,
    storedBytes: 4321,
  };
}

export function world(
  opts: {
    plan?: Partial<SyncPlan>;
    pullError?: Error;
    scanError?: Error;
    appliedOmitted?: number;
    /** The digest the reference resolves to (default DIGEST). */
    digest?: string;
  } = {},
): World {
  const calls: string[] = [];
  const statusWrites: ClusterCatalogStatus[] = [];
  const scan = scanResult();
  const plan: SyncPlan = {
    create: [],
    update: [],
    delete: [],
    unchanged: 7,
    unchangedOmitted: 0,
    ...opts.plan,
  };
  const puller: Puller = {
    resolve: async () => {
      calls.push('resolve');
      if (opts.pullError) throw opts.pullError;
      return opts.digest ?? DIGEST;
    },
    pull: async (ref) => {
      calls.push(`pull ${ref}`);
      const digest = opts.digest ?? DIGEST;
      return { ref, digest, dir: '/cache', configsDir: '/cache/configs', cached: false };
    },
  };
  const syncer: Syncer = {
    plan: async (target) => {
      calls.push('scan');
      if (opts.scanError) throw opts.scanError;
      return { target, scan, plan, dispose: async () => void calls.push('dispose') };
    },
    apply: async ({ plan: p }, onProgress) => {
      calls.push('apply');
      const total = p.create.length + p.update.length + p.delete.length;
      for (let i = 1; i <= total; i++) onProgress(i, total);
      return { omitted: opts.appliedOmitted ?? 0, storedBytesDelta: 0 };
    },
    deleteAll: async () => {
      calls.push('deleteAll');
      return 4;
    },
  };
  const content: ContentPublisher = {
    baseUrl: (c) => `http://content.example/catalogs/${c}`,
    blobUrl: () => 'http://content.example/blob',
    prepare: async () => {
      calls.push('prepare');
      return HASH;
    },
    publish: async () => void calls.push('publish'),
    remove: async () => void calls.push('remove'),
  };
  return {
    calls,
    statusWrites,
    deps: {
      ports: {
        puller,
        syncer,
        content,
        status: { write: async (s) => void statusWrites.push(structuredClone(s)) },
      },
      settings: { maxObjectBytes: 1 << 20 },
      clock: { date: () => NOW, random: () => 0.5 },
    },
  };
}

export const cond = (s: ClusterCatalogStatus, type: string) =>
  s.conditions?.find((c) => c.type === type);

/** The reasons of Progressing and ObjectsSynced in each status, one line a status. */
export const conditionSequence = (statuses: ClusterCatalogStatus[]) =>
  statuses.map((s) =>
    ['Progressing', 'ObjectsSynced'].map((t) => `${t}=${cond(s, t)?.reason}`).join(' '),
  );

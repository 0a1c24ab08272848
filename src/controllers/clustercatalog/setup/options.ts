// What the ClusterCatalog controller's setup takes from the program that runs it (src/cmd parses
// them from flags): its own settings, log and metrics, so that nothing here imports src/cmd.
import type { ContentProfile, ObjectView } from '../../../api/v1/index.js';

/** The log lines the setup writes (pino's Logger is one). */
export interface SetupLog {
  debug(msg: string): void;
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

export interface LeaderElectionSettings {
  leaseName: string;
  namespace: string;
  identity: string;
  leaseDurationMs: number;
  renewDeadlineMs: number;
  retryPeriodMs: number;
}

export interface ClusterCatalogSetupOptions {
  /** --workers: catalogs parsed and written at once. */
  workers: number;
  /** --pull-workers: catalogs that may wait on a registry at once. */
  pullWorkers: number;
  maxObjectBytes: number;
  contentProfile: ContentProfile;
  pullTimeoutMs: number;
  /** --drift-watch-pause-writes (0: never). */
  driftWatchPauseWrites: number;
  /**
   * --object-view: crd (default) writes CatalogMetadata and watches them for drift; served
   * writes none (the syncer is the served view's, src/sync/served-view-syncer.ts) and
   * watches none.
   */
  objectView?: ObjectView;
  /** Lead by a Lease (--leader-elect); none: this process always leads. */
  leaderElection?: LeaderElectionSettings;
}

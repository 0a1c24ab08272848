// The outer reconcile's status writer: every status the inner reconcile reports (the journal,
// progress, the outcome) becomes a merge patch of what changed since the last write, conditional
// on the resourceVersion the status was computed from and then on the one each write returned: a
// patch computed from a lagging informer cache would leave set a field that must be cleared, so
// the apiserver refuses it (409) instead. After a failed write the object's resourceVersion is
// unknown: nothing more is written, and the reconcile is retried from the informer cache.
import type { ClusterCatalog, ClusterCatalogStatus } from '../../api/v1/index.js';
import type { StatusSink } from './ports.js';
import { statusPatch } from './status-patch.js';

/** What the writer asks of the apiserver (ClusterCatalogAPI.patchStatus). */
export interface StatusPatcher {
  patchStatus(
    name: string,
    status: Record<string, unknown>,
    resourceVersion: string,
  ): Promise<ClusterCatalog>;
}

export class StatusWriter implements StatusSink {
  private readonly name: string;
  private written: ClusterCatalogStatus | undefined;
  private resourceVersion: string;
  private failed: { err: unknown } | undefined;
  private dropped = false;

  /** `catalog`: the object as read, whose status is what the apiserver holds. */
  constructor(
    private readonly api: StatusPatcher,
    catalog: ClusterCatalog,
  ) {
    this.name = catalog.metadata.name;
    this.written = catalog.status;
    this.resourceVersion = catalog.metadata.resourceVersion ?? '';
  }

  /** Writes what changed since the last write (nothing when nothing did). */
  async write(status: ClusterCatalogStatus): Promise<void> {
    this.throwIfFailed();
    const patch = statusPatch(this.written, status);
    if (!patch) return;
    try {
      const updated = await this.api.patchStatus(this.name, patch, this.resourceVersion);
      this.resourceVersion = updated.metadata.resourceVersion ?? this.resourceVersion;
      this.dropped ||= droppedFields(patch, updated.status).length > 0;
    } catch (err) {
      this.failed = { err };
      throw err;
    }
    this.written = structuredClone(status);
  }

  /** A write failed: the status computed after it may describe that refusal, never shown. */
  throwIfFailed(): void {
    if (this.failed) throw this.failed.err;
  }

  /** The object's resourceVersion after the last write (the one read, before any). */
  get currentResourceVersion(): string {
    return this.resourceVersion;
  }

  /** Whether the apiserver dropped fields of a write: its ClusterCatalog CRD does not have them. */
  get pruned(): boolean {
    return this.dropped;
  }
}

/** The fields a status patch set that the object the apiserver returned does not have. */
export function droppedFields(
  patch: Record<string, unknown>,
  stored: ClusterCatalogStatus | undefined,
): string[] {
  const kept = (stored ?? {}) as Record<string, unknown>;
  return Object.keys(patch)
    .filter((k) => patch[k] !== null && kept[k] === undefined)
    .sort();
}

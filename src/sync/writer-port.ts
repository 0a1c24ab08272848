// The port the sync writes CatalogMetadata through (the entry point wires it to the apiserver,
// catalogmetadata-writer.ts holds its policy) and the errors a write reports.
import type { ExistingObject } from './plan.js';

/** An object to write, as its request body (JSON); parsed only when a write needs its fields. */
export interface ObjectWrite {
  name: string;
  body: Buffer | string;
}

/** One answer of the apiserver to one write request (each attempt, retries included). */
export interface WriteResponse {
  /** The HTTP status; 0 when no response came (a network error). */
  status: number;
  /** From sending the request to its response's status line, in milliseconds. */
  latencyMs: number;
  /**
   * API Priority and Fairness's priority level of the request (X-Kubernetes-PF-PriorityLevel-UID):
   * a new level (a FlowSchema applied or removed) starts a new baseline.
   */
  priorityLevel?: string;
}

/** Access to CatalogMetadata objects; the entry point wires it to the apiserver. */
export interface CatalogMetadataWriter {
  /** Objects labelled as this catalog's, metadata only, paginated. */
  listExisting(catalog: string, signal?: AbortSignal): AsyncIterable<ExistingObject>;
  create(obj: ObjectWrite, signal?: AbortSignal): Promise<void>;
  /** Replace; the body's metadata.resourceVersion is set and makes it conditional. */
  update(obj: ObjectWrite, signal?: AbortSignal): Promise<void>;
  delete(name: string, uid: string, signal?: AbortSignal): Promise<void>;
  /**
   * The create or update with server-side dry-run: admission and validation run, nothing is
   * stored. Rejects as the write would. Optional: without it, refusals are not pre-checked.
   */
  dryRun?(verb: 'create' | 'update', obj: ObjectWrite, signal?: AbortSignal): Promise<void>;
  /**
   * The specDigest (drift.ts) of an object's spec as stored now, or undefined if it is gone;
   * read for objects whose spec another field manager co-owns. Optional: without it, such
   * objects are rewritten.
   */
  liveSpecDigest?(have: ExistingObject, signal?: AbortSignal): Promise<string | undefined>;
  /**
   * Calls `listener` with the answer to every create, update and delete request sent from now on
   * (each attempt, retries included; dry-runs and reads not): what write pacing adapts to
   * (pacing.ts). Optional: without it, writes are not paced (the window stays at its ceiling).
   */
  observeResponses?(listener: (r: WriteResponse) => void): void;
}

/**
 * The apiserver refused an object whole because of its size (etcd's request limit, the
 * apiserver's body limit). The writer throws it so the engine can write the object again
 * with its content omitted.
 */
export class ObjectTooLargeError extends Error {
  constructor(
    readonly object: string,
    cause: unknown,
  ) {
    super(`CatalogMetadata ${object} is too large for the apiserver`, { cause });
    this.name = 'ObjectTooLargeError';
  }
}

/** A write the apiserver refused; names the object so the status can say which. */
export class SyncWriteError extends Error {
  constructor(
    readonly verb: 'create' | 'update' | 'delete',
    readonly object: string,
    cause: unknown,
  ) {
    super(`${verb} CatalogMetadata ${object}`, { cause });
    this.name = 'SyncWriteError';
  }
}

// What a KubeClient (client.ts) is made with, what each of its requests says, and what each
// attempt of a request was answered. Types only: the client library's entry point loads nothing
// for them (src/client/entry-point.test.ts counts its modules).
import type { RequestRetry } from '../util/backoff.js';
import type { KubeconfigEnv } from './kubeconfig.js';

export interface KubeClientOptions {
  /** Path of a kubeconfig; default: $KUBECONFIG, ~/.kube/config, else in-cluster. */
  kubeconfig?: string;
  /** Most connections open at once (default 32). */
  maxSockets?: number;
  /** Attempts for a request that fails with 429, 5xx or a network error (default 5). */
  attempts?: number;
  /**
   * How to wait between attempts (the controller wires its one backoff, src/util/backoff.ts's
   * requestRetry; tests drive time through it). Default: client.ts's defaultRequestRetry.
   */
  retry?: RequestRetry;
  /** Called once per HTTP request made (for metrics: verb, resource, status). */
  onRequest?: (verb: string, resource: string, status: number) => void;
  /** The machine the kubeconfig is read from (tests); default: this process's. */
  env?: KubeconfigEnv;
  /** The clock credentials are re-read by (tests); default: Date.now. */
  now?: () => number;
}

export interface RequestOptions {
  method?: string;
  query?: Record<string, string | number | boolean | undefined>;
  /** A Buffer or string is sent as is; anything else as JSON. */
  body?: unknown;
  contentType?: string;
  accept?: string;
  signal?: AbortSignal;
  /**
   * Drain a successful response without reading it (resolves undefined). A write's response
   * echoes the whole object; parsing tens of thousands of them is garbage the sync never uses.
   */
  discardResponse?: boolean;
  /** The verb and resource said in errors and metrics, e.g. 'create', 'catalogmetadata'. */
  verb: string;
  resource: string;
  /** Called with what each attempt was answered (the sync's write pacing adapts to it). */
  onResponse?: (r: ResponseInfo) => void;
}

/** What one attempt of a request was answered: status, latency, API Priority and Fairness. */
export interface ResponseInfo {
  /** The HTTP status; 0: no response (a network error). */
  status: number;
  /** From sending the request to its response's status line, in milliseconds. */
  latencyMs: number;
  /** X-Kubernetes-PF-PriorityLevel-UID: the APF priority level that admitted the request. */
  priorityLevel?: string;
}

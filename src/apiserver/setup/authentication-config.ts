// The requestheader settings read from kube-system/extension-apiserver-authentication (what
// kube-apiserver publishes of its --requestheader-* flags), polled on an interval of the injected
// clock and applied to the front when they change: a rotated front-proxy CA counts within one
// interval. A read that fails, or settings that cannot be used, keep the previous ones in force
// (reported once per cause); before the first good read there are none: every request is 401.
import type { KubeClient } from '../../kube/index.js';
import { isNotFound } from '../../kube/errors.js';
import type { Clock } from '../../util/clock.js';
import { pollEvery } from '../../util/clock.js';
import type { RequestHeaderConfig } from '../front/index.js';
import { AUTHENTICATION_CONFIGMAP, requestHeaderConfigFromData } from '../front/index.js';

/** The ConfigMap's data; undefined when it does not exist (no aggregation layer). */
export type ReadAuthenticationData = (
  signal: AbortSignal,
) => Promise<Record<string, string> | undefined>;

/** Reads the ConfigMap through the apiserver (the controller needs `get` on it: RBAC). */
export function authenticationConfigMapReader(client: KubeClient): ReadAuthenticationData {
  const { namespace, name } = AUTHENTICATION_CONFIGMAP;
  return async (signal) => {
    try {
      const cm = await client.request<{ data?: Record<string, string> }>(
        `/api/v1/namespaces/${namespace}/configmaps/${name}`,
        { method: 'GET', verb: 'get', resource: 'configmaps', signal },
      );
      return cm?.data ?? {};
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  };
}

export interface RequestHeaderConfigLog {
  info(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

export class RequestHeaderSettings {
  /** The fingerprint (JSON of the data) of what is applied, and of the last cause reported. */
  private applied: string | undefined;
  private reported: string | undefined;

  constructor(
    private readonly read: ReadAuthenticationData,
    private readonly apply: (config: RequestHeaderConfig | undefined) => void,
    private readonly log: RequestHeaderConfigLog,
    private readonly timeoutMs = 10_000,
  ) {}

  /** Reads the ConfigMap and applies its settings when they changed; never rejects. */
  async load(): Promise<void> {
    let data: Record<string, string> | undefined;
    try {
      data = await this.read(AbortSignal.timeout(this.timeoutMs));
    } catch (err) {
      this.report('read', err, 'cannot read the requestheader settings; the previous ones stay');
      return;
    }
    const fingerprint = JSON.stringify(data ?? null);
    if (fingerprint === this.applied) return;
    try {
      const config = requestHeaderConfigFromData(data);
      this.apply(config);
      this.applied = fingerprint;
      this.reported = undefined;
      const { namespace, name } = AUTHENTICATION_CONFIGMAP;
      this.log.info(
        {
          configMap: `${namespace}/${name}`,
          ...(config
            ? { allowedNames: config.allowedNames, usernameHeaders: config.usernameHeaders }
            : { clientCA: 'none' }),
        },
        config
          ? 'served API: requestheader settings applied'
          : 'served API: no front-proxy client CA; every request is refused (401)',
      );
    } catch (err) {
      this.report(fingerprint, err, 'requestheader settings not applied; the previous ones stay');
    }
  }

  private report(cause: string, err: unknown, msg: string): void {
    const reason = err instanceof Error ? err.message : String(err);
    const key = `${cause} ${reason}`;
    if (this.reported === key) return;
    this.reported = key;
    this.log.error({ reason }, `served API: ${msg}`);
  }

  /** Loads every intervalMs on clock until the returned function is called. */
  watch(clock: Pick<Clock, 'setTimer'>, intervalMs: number): () => void {
    return pollEvery(
      clock,
      intervalMs,
      () => this.load(),
      () => {},
    );
  }
}

// Leadership: the ClusterCatalog controller runs while this replica holds the Lease. A replica
// that loses the lease (e.g. it could not renew while the apiserver was down) campaigns again
// with a new elector, as a standby: it must not sit out leaderless.
import { setTimeout as delay } from 'node:timers/promises';
import type { KubeClient } from '../../../kube/index.js';
import { leaseClient } from '../../../kube/index.js';
import type { RuntimeMetrics } from '../../runtime/index.js';
import { LeaderElector } from '../../runtime/index.js';
import type { LeaderElectionSettings, SetupLog } from './options.js';

/** How long an elector may fail to renew before healthz fails. */
const MAX_TOLERABLE_EXPIRED_MS = 20_000;
/** The pause before campaigning again after leadership was lost. */
const CAMPAIGN_AGAIN_MS = 2000;

export interface Leadership {
  election: LeaderElectionSettings;
  client: KubeClient;
  log: SetupLog;
  runtimeMetrics: RuntimeMetrics;
  /** Runs the controller; `leading` aborts when leadership ends. */
  onStartedLeading: (leading: AbortSignal) => Promise<void>;
  /** Gets the health check of the elector in charge (the program's healthz). */
  onElector?: (check: () => Error | undefined) => void;
}

export async function leadWhileElected(lead: Leadership, signal: AbortSignal): Promise<void> {
  const { log, election } = lead;
  const { identity } = election;
  let elector: LeaderElector | undefined;
  lead.onElector?.(() => elector?.check(MAX_TOLERABLE_EXPIRED_MS));
  while (!signal.aborted) {
    elector = new LeaderElector({
      leaseName: election.leaseName,
      leaseDurationMs: election.leaseDurationMs,
      renewDeadlineMs: election.renewDeadlineMs,
      retryPeriodMs: election.retryPeriodMs,
      identity,
      client: leaseClient(lead.client, election.namespace),
      onStartedLeading: (leading) => {
        log.info({ identity }, 'became leader');
        return lead.onStartedLeading(leading);
      },
      onStoppedLeading: () => log.info({ identity }, 'stopped leading'),
      onNewLeader: (leader) => log.info({ leader }, 'leader is'),
      onError: (err, during) => log.warn({ err, during }, 'leader election'),
    });
    lead.runtimeMetrics.watchLeadership('catalogd-ts', elector);
    await elector.run(signal);
    if (signal.aborted) break;
    log.warn({ identity }, 'lost leadership; campaigning again');
    await delay(CAMPAIGN_AGAIN_MS, undefined, { signal }).catch(() => undefined);
  }
}

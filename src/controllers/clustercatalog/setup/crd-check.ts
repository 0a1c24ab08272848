// Wiring of the ClusterCatalog CRD check (crd-status-fields.ts): a watch
// of that one CustomResourceDefinition, and what is done when the verdict changes (at start, and
// whenever the CRD changes): one log line, an event on the CRD, a metric, and every catalog queued
// so that its Progressing message says it (or, once our CRD is back, its status is written whole).
import type { SetupLog } from './options.js';
import { Gauge } from 'prom-client';
import type { Registry } from 'prom-client';
import type { ServedCRD } from './crd-status-fields.js';
import {
  CLUSTER_CATALOG_CRD_NAME,
  CRD_FIX_COMMAND,
  CRDStatusFieldsCheck,
} from './crd-status-fields.js';
import { Informer } from '../../runtime/index.js';
import type { EventRecorder, KubeClient } from '../../../kube/index.js';
import { Resource } from '../../../kube/index.js';

export const EVENT_CRD_MISSING_STATUS_FIELDS = 'CRDMissingStatusFields';
export const EVENT_CRD_STATUS_FIELDS_RESTORED = 'CRDStatusFieldsRestored';

export interface CRDCheckWiring {
  check: CRDStatusFieldsCheck;
  informer: Informer<ServedCRD>;
  stop(): void;
}

export function clusterCatalogCRDCheck(opts: {
  client: KubeClient;
  registry: Registry;
  log: SetupLog;
  events: EventRecorder;
  /** Queues every catalog. */
  onChange: () => void;
}): CRDCheckWiring {
  const { log, events } = opts;
  const check = new CRDStatusFieldsCheck();
  const missingFields = new Gauge({
    name: 'catalogd_clustercatalog_crd_missing_status_fields',
    help: "Status fields of catalogd-ts's ClusterCatalog CRD that the served CRD lacks (0: ours is served).",
    registers: [opts.registry],
  });
  missingFields.set(0);
  const crds = new Resource<ServedCRD>(opts.client, {
    group: 'apiextensions.k8s.io',
    version: 'v1',
    plural: 'customresourcedefinitions',
  });
  // One object: selected by name, so its list and watch cost nothing as other CRDs change.
  const fieldSelector = `metadata.name=${CLUSTER_CATALOG_CRD_NAME}`;
  const informer = new Informer<ServedCRD>({
    name: 'customresourcedefinitions',
    listWatch: {
      list: (o, signal) => crds.list({ ...o, fieldSelector }, signal),
      watch: (o, onEvent, signal) => crds.watch({ ...o, fieldSelector }, onEvent, signal),
    },
    onError: (err) => log.warn({ err }, 'customresourcedefinition watch failed; restarting'),
  });
  const unsubscribe = informer.subscribe(
    () => CLUSTER_CATALOG_CRD_NAME,
    () => {
      const crd = informer.get(CLUSTER_CATALOG_CRD_NAME);
      if (!check.observe(crd)) return;
      missingFields.set(check.missing.length);
      const problem = check.problem();
      const target = {
        apiVersion: 'apiextensions.k8s.io/v1',
        kind: 'CustomResourceDefinition',
        name: CLUSTER_CATALOG_CRD_NAME,
        uid: crd?.metadata.uid ?? '',
      };
      if (problem) {
        log.error(
          { crd: CLUSTER_CATALOG_CRD_NAME, missing: check.missing, fix: CRD_FIX_COMMAND },
          problem,
        );
        void events
          .record(target, 'Warning', EVENT_CRD_MISSING_STATUS_FIELDS, problem)
          .catch(() => {});
      } else {
        const message = `the ClusterCatalog CRD the apiserver serves has catalogd-ts's status fields again; every catalog's status is written whole`;
        log.info({ crd: CLUSTER_CATALOG_CRD_NAME }, message);
        void events
          .record(target, 'Normal', EVENT_CRD_STATUS_FIELDS_RESTORED, message)
          .catch(() => {});
      }
      opts.onChange();
    },
  );
  return { check, informer, stop: unsubscribe };
}

// The "other client" of the control-plane section (bench/control-plane.ts) and of the pacing
// scenario (bench/scenarios/pacing.ts): a ServiceAccount doing simple GETs and LISTs of
// ConfigMaps in its own namespace, one request at a time on each of two loops (at most
// `ratePerSecond` requests a second in all, when given), recording every request's latency,
// until stopped.
import { setTimeout as delay } from 'node:timers/promises';
import type { Api } from './api.js';

export interface ProbeResult {
  /** Latency of every request that completed, in seconds. */
  seconds: number[];
  /** The same split by request: GET of one ConfigMap, LIST of the namespace's. */
  getSeconds: number[];
  listSeconds: number[];
  /** Responses other than 200 (429: rejected by API Priority and Fairness). */
  errors: number;
}

const LOOPS = 2;

export function latencyProbe(
  api: Api,
  namespace: string,
  configMaps: number,
  ratePerSecond?: number,
): { stop(): Promise<ProbeResult> } {
  // Each loop's requests start at most every `periodMs` (a slow answer delays only its loop's next).
  const periodMs = ratePerSecond ? (LOOPS * 1000) / ratePerSecond : 0;
  const seconds: number[] = [];
  const getSeconds: number[] = [];
  const listSeconds: number[] = [];
  let errors = 0;
  let stopped = false;
  const loop = async (k: number): Promise<void> => {
    let next = performance.now();
    for (let i = k; !stopped; i++) {
      if (periodMs > 0) {
        const wait = next - performance.now();
        if (wait > 0) await delay(wait);
        next = Math.max(next + periodMs, performance.now());
        if (stopped) break;
      }
      const get = i % 2 === 0;
      const p = get
        ? `/api/v1/namespaces/${namespace}/configmaps/cm-${i % configMaps}`
        : `/api/v1/namespaces/${namespace}/configmaps`;
      const t0 = performance.now();
      const r = await api.request('GET', p);
      const s = (performance.now() - t0) / 1000;
      seconds.push(s);
      (get ? getSeconds : listSeconds).push(s);
      if (r.status !== 200) errors++;
    }
  };
  const loops = Promise.all(Array.from({ length: LOOPS }, (_, k) => loop(k)));
  return {
    async stop() {
      stopped = true;
      await loops;
      return { seconds, getSeconds, listSeconds, errors };
    },
  };
}

// Kubernetes Events (core/v1) about cluster-scoped objects, so `kubectl describe` shows what the
// controller did. Repeats of the same event are counted in place instead of piling up objects.
import { createHash } from 'node:crypto';
import type { KubeClient } from './client.js';
import { isNotFound } from './errors.js';
import { Resource } from './resource.js';

export interface EventTarget {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
}

export type EventType = 'Normal' | 'Warning';

/** What the controller needs to say something about an object. */
export interface EventRecorder {
  record(target: EventTarget, type: EventType, reason: string, message: string): Promise<void>;
}

interface EventObject {
  apiVersion: 'v1';
  kind: 'Event';
  metadata: { name: string; namespace: string; resourceVersion?: string };
  involvedObject: EventTarget;
  reason: string;
  message: string;
  type: EventType;
  count: number;
  firstTimestamp: string;
  lastTimestamp: string;
  source: { component: string };
  reportingComponent: string;
  reportingInstance: string;
}

export function eventRecorder(
  client: KubeClient,
  opts: { component: string; instance: string; namespace?: string; now?: () => Date },
): EventRecorder {
  // Events of cluster-scoped objects live in "default", as kubectl describe looks for them there.
  const namespace = opts.namespace ?? 'default';
  const events = new Resource<EventObject>(client, {
    group: '',
    version: 'v1',
    plural: 'events',
    namespace,
  });
  const now = opts.now ?? (() => new Date());
  return {
    async record(target, type, reason, message) {
      const key = createHash('sha256')
        .update(`${target.uid}\0${type}\0${reason}\0${message}`)
        .digest('hex')
        .slice(0, 16);
      const name = `${target.name}.${key}`.slice(-253).replace(/^[^a-z0-9]+/, '');
      const ts = now()
        .toISOString()
        .replace(/\.\d+Z$/, 'Z');
      try {
        const existing = await events.get(name);
        await events.mergePatch(name, { count: existing.count + 1, lastTimestamp: ts });
        return;
      } catch (err) {
        if (!isNotFound(err)) throw err;
      }
      await events.create({
        apiVersion: 'v1',
        kind: 'Event',
        metadata: { name, namespace },
        involvedObject: target,
        reason,
        message: message.slice(0, 1024),
        type,
        count: 1,
        firstTimestamp: ts,
        lastTimestamp: ts,
        source: { component: opts.component },
        reportingComponent: opts.component,
        reportingInstance: opts.instance,
      });
    },
  };
}

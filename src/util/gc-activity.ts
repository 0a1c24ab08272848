// The process's garbage collections as a signal that it works: whatever a process does
// allocates, and allocating runs V8's collector, while an idle process collects nothing. Parts
// that only matter while the process works (the memory reclaim, the event-loop lag sampler)
// wake on it instead of on a timer, so an idle controller has no timer of theirs.
import { PerformanceObserver } from 'node:perf_hooks';

/** Calls `poke` after V8 garbage collections (perf_hooks' gc entries, batched); returns the unsubscribe function. */
export function onGarbageCollection(poke: () => void): () => void {
  const observer = new PerformanceObserver(() => poke());
  observer.observe({ entryTypes: ['gc'] });
  return () => observer.disconnect();
}

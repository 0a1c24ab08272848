// Time, injected: the one Clock lives in src/util/clock.ts (src/source and the ClusterCatalog
// reconcile use it too); re-exported so that the runtime's imports keep working.
export { ManualClock, RealClock, realClock, settle } from '../../util/clock.js';
export type { Clock, Timer } from '../../util/clock.js';

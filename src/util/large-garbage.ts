// Collecting the copies of large documents as they are parsed, rather than at V8's next full
// collection.
//
// A document of several megabytes is held as several strings while it is parsed (its decoded
// text, the parser's copy, the value, its canonical form). Strings that size live in V8's
// large-object space, which only a full collection frees, and V8 starts one only when the old
// generation has grown by tens of megabytes: the copies of several documents piled up. Measured
// on 60 MB of 7.5 MB documents, one process with the Deployment's heap and malloc options: a
// parse alone peaked 76 MB above its start without a collection per document, 16 MB with
// (docs/bounds.md). Small blobs never trigger it: a catalog without large documents pays nothing.
import { exposedGc } from './memory-reclaim.js';

/** Blobs smaller than this are left to V8. */
export const LARGE_BLOB_BYTES = 1 << 20;
/** Large blobs' bytes that may be parsed between two collections. */
export const LARGE_GARBAGE_BUDGET_BYTES = 6 << 20;

/** Counts large blobs' bytes; collects once their sum passes a budget. */
export class LargeGarbage {
  private pending = 0;
  /** Collections made (for tests and metrics). */
  collections = 0;

  constructor(
    private readonly collect: () => void = () => exposedGc()({ type: 'major' }),
    private readonly budget = LARGE_GARBAGE_BUDGET_BYTES,
    private readonly minBytes = LARGE_BLOB_BYTES,
  ) {}

  /** Called once the consumer is done with a blob of `bytes` canonical bytes. */
  note(bytes: number): void {
    if (bytes < this.minBytes) return;
    this.pending += bytes;
    if (this.pending < this.budget) return;
    this.pending = 0;
    this.collections++;
    this.collect();
  }
}

// Freeing a large Buffer when its owner is done with it, rather than at V8's next full
// collection. A Buffer's bytes live outside the V8 heap; a Buffer that survived two scavenges
// (a 7.5 MB document takes many to parse) is freed only by a full collection, which V8 starts
// when the old generation, or external memory, has grown by tens of megabytes: documents'
// Buffers pile up in between (measured: 30 to 40 MB of external memory while parsing 60 MB of
// 7.5 MB documents, docs/bounds.md). Detaching the ArrayBuffer frees its memory at once.

/** Smaller Buffers are left to the collector (and small ones share Node's pool). */
export const RELEASE_MIN_BYTES = 1 << 20;

interface Transferable {
  transfer(newLength?: number): ArrayBuffer;
}

/**
 * Frees `buf`'s memory now: afterwards it (and every view of its memory) has length 0. Only for a
 * Buffer the caller allocated itself and that nothing else still reads. A no-op for a Buffer
 * under RELEASE_MIN_BYTES, or one that is a part of a larger allocation.
 */
export function releaseBuffer(buf: Buffer): void {
  const whole = buf.buffer;
  if (buf.byteLength < RELEASE_MIN_BYTES) return;
  if (!(whole instanceof ArrayBuffer) || buf.byteOffset !== 0) return;
  if (whole.byteLength !== buf.byteLength) return;
  // ES2024's ArrayBuffer.prototype.transfer (Node 21+): detaches; length 0 keeps nothing.
  (whole as unknown as Transferable).transfer(0);
}

// Strict UTF-8 decoding that says where the first invalid byte is.

const strict = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** Index of the first byte that is not part of a valid UTF-8 sequence, or -1. */
function firstInvalidUtf8(buf: Uint8Array): number {
  let i = 0;
  const n = buf.length;
  while (i < n) {
    const b = buf[i]!;
    if (b < 0x80) {
      i++;
      continue;
    }
    let need: number;
    let min: number;
    if (b >= 0xc2 && b <= 0xdf) [need, min] = [1, 0x80];
    else if (b >= 0xe0 && b <= 0xef) [need, min] = [2, 0x800];
    else if (b >= 0xf0 && b <= 0xf4) [need, min] = [3, 0x10000];
    else return i;
    if (i + need >= n) return i;
    let cp = b & (0x3f >> need);
    for (let k = 1; k <= need; k++) {
      const c = buf[i + k];
      if (c === undefined || (c & 0xc0) !== 0x80) return i;
      cp = (cp << 6) | (c & 0x3f);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return i;
    i += need + 1;
  }
  return -1;
}

/** Decode strictly; on invalid UTF-8 returns the offset of the first bad byte instead. */
export function decodeUtf8(buf: Uint8Array): { text: string } | { invalidAt: number } {
  try {
    return { text: strict.decode(buf) };
  } catch {
    return { invalidAt: Math.max(0, firstInvalidUtf8(buf)) };
  }
}
